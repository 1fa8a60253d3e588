"""Translate tcplab scenarios into ns-2.35 Tcl and run Debian's ``ns`` on them.

ns-2.35 is tcplab's oracle: the same scenario is run by tcplab and by ns-2 and
the two wired traces are compared (see ``tcplab.tracediff``).

The translator works on the *normalized* scenario of ``tcplab.validate`` (every
default filled in, node ids, seconds, bit/s, bytes), so checking and unit
parsing stay in one place, the Rust core.  It only maps names and formats.

    from tcplab.ns2 import scenario_to_tcl, run_ns2
    tcl = scenario_to_tcl(tcplab.validate("s.toml"), "out.tr", "cwnd.tr")
    paths = run_ns2("s.toml", "/tmp/work")   # {"tcl":…, "trace":…, "cwnd":…}

A knob without an ns-2 variable raises ValueError naming the field.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

__all__ = ["scenario_to_tcl", "run_ns2", "NS2Error", "TCP_VARS", "RED_VARS"]


class NS2Error(RuntimeError):
    """ns is missing, failed or timed out."""


# tcplab knob -> ns-2 instance variable.  Times are seconds (C++ doubles) and
# pass through unchanged.
TCP_VARS = {
    "packet_size": "packetSize_",  # payload; the wire adds tcpip_base_hdr_size_
    "window": "window_",
    "window_init": "windowInit_",
    "window_init_option": "windowInitOption_",
    "syn": "syn_",
    "delay_growth": "delay_growth_",
    "max_cwnd": "maxcwnd_",
    "maxburst": "maxburst_",
    "tcp_tick": "tcpTick_",
    "rtxcur_init": "rtxcur_init_",
    "minrto": "minrto_",
    "maxrto": "maxrto_",
    "srtt_init": "srtt_init_",
    "rttvar_init": "rttvar_init_",
    "numdupacks": "numdupacks_",
    "singledup": "singledup_",
    "bug_fix": "bugFix_",
    "precision_reduce": "precisionReduce_",
    "ecn": "ecn_",
    "timestamps": "timestamps_",
    "slow_start_restart": "slow_start_restart_",
    "decrease_num": "decrease_num_",
    "increase_num": "increase_num_",
    "newreno_changes": "newreno_changes_",
    "newreno_changes1": "newreno_changes1_",
    "partial_window_deflation": "partial_window_deflation_",
    "exit_recovery_fix": "exit_recovery_fix_",
    "partial_ack": "partial_ack_",
    "ss_div4": "ss-div4_",
    "rampdown": "rampdown_",
    "use_headers": "useHeaders_",
    "numdupacks_frac": "numdupacksFrac_",
    "no_fast_retrans": "noFastRetrans_",
    "aggressive_maxburst": "aggressive_maxburst_",
    "exit_fast_retrans": "exitFastRetrans_",
    "ts_reset_rto": "ts_resetRTO_",
    "less_careful": "lessCareful_",
    "bug_fix_ack": "bugFix_ack_",
    "bug_fix_ts": "bugFix_ts_",
    "bugfix_ss": "bugfix_ss_",
    "timerfix": "timerfix_",
    "rfc2988": "rfc2988_",
    "old_ecn": "old_ecn_",
    "max_connects": "max_connects_",
    "srtt_bits": "T_SRTT_BITS",
    "rttvar_bits": "T_RTTVAR_BITS",
    "rttvar_exp": "rttvar_exp_",
    "v_alpha": "v_alpha_",
    "v_beta": "v_beta_",
    "v_gamma": "v_gamma_",
    "rbp_scale": "rbp_scale_",
    "rbp_rate_algorithm": "rbp_rate_algorithm_",
    "tcpip_base_hdr_size": "tcpip_base_hdr_size_",
    "window_option": "windowOption_",
    "low_window": "low_window_",
    "high_window": "high_window_",
    "high_p": "high_p_",
    "high_decrease": "high_decrease_",
    "cwnd_range": "cwnd_range_",
    "max_ssthresh": "max_ssthresh_",
    "frto": "frto_enabled_",
    "sfrto": "sfrto_enabled_",
    "spurious_response": "spurious_response_",
    "add793expbackoff": "add793expbackoff_",
    "add793jacobsonrtt": "add793jacobsonrtt_",
    "add793fastrtx": "add793fastrtx_",
    "add793slowstart": "add793slowstart_",
    "add793additiveinc": "add793additiveinc_",
    "add793karnrtt": "add793karnrtt_",
    "add793exponinc": "add793exponinc_",
    "overhead": "overhead_",
    "qoption": "QOption_",
    "rtt_counter": "EnblRTTCtr_",
    "control_increase": "control_increase_",
}

# Agent/TCPSink variables (all bind_bool).
SINK_VARS = {
    "syn_immediate_ack": "SYN_immediate_ack_",
    "rfc2581_immediate_ack": "RFC2581_immediate_ack_",
    "ts_echo_rfc1323": "ts_echo_rfc1323_",
    "ecn_syn": "ecn_syn_",
}

# Variables that exist only on Agent/TCP/Newreno (elsewhere they would be dead Tcl variables).
# Knobs only one agent class binds; setting them on another class would be meaningless.
VARIANT_ONLY = {
    "newreno": {"newreno_changes", "newreno_changes1", "partial_window_deflation", "exit_recovery_fix"},
    "sack1": {"partial_ack"},
    "fack": {"ss_div4", "rampdown"},
    "vegas": {"v_alpha", "v_beta", "v_gamma"},
    "rfc793edu": {"add793expbackoff", "add793jacobsonrtt", "add793fastrtx", "add793slowstart",
                  "add793additiveinc", "add793karnrtt", "add793exponinc"},
}

# Switches that are C++ ints (plain bind), written 1/0; the other booleans are
# bind_bool and written true/false.
INT_SWITCHES = {"singledup", "newreno_changes", "newreno_changes1", "partial_window_deflation",
                "exit_recovery_fix", "adaptive", "qoption", "rtt_counter", "control_increase"}

# C++ *int* seconds: ns-2 truncates them before dividing by tcpTick_.
INT_SECONDS = {"srtt_init", "rttvar_init"}

DROPTAIL_VARS = {"queue_in_bytes": "queue_in_bytes_", "mean_pktsize": "mean_pktsize_"}

RED_VARS = {
    "bytes": "bytes_",
    "queue_in_bytes": "queue_in_bytes_",
    "mean_pktsize": "mean_pktsize_",
    # 0, 0, -1 = automatic.  ns-2 already auto-configures RED *during* duplex-link,
    # from the class defaults, and at `$ns run` only re-derives the ones still at
    # their automatic value; writing the normalized values back re-arms them, so a
    # per-link targetdelay or mean_pktsize is not silently ignored. [checked on ns]
    "thresh": "thresh_",
    "maxthresh": "maxthresh_",
    "q_weight": "q_weight_",
    "linterm": "linterm_",
    "wait": "wait_",
    "gentle": "gentle_",
    "setbit": "setbit_",
    "mark_p": "mark_p_",
    "use_mark_p": "use_mark_p_",
    "drop_tail": "drop_tail_",
    "drop_rand": "drop_rand_",
    "targetdelay": "targetdelay_",
    "drop_rand": "drop_rand_",
    "ns1_compat": "ns1_compat_",
    "adaptive": "adaptive_",  # a C++ int
    "alpha": "alpha_",
    "beta": "beta_",
    "interval": "interval_",
    "top": "top_",
    "bottom": "bottom_",  # 0 = automatic, re-derived at `$ns run` like thresh_
}

TCP_AGENTS = {"tahoe": "Agent/TCP", "reno": "Agent/TCP/Reno", "newreno": "Agent/TCP/Newreno",
              "sack1": "Agent/TCP/Sack1", "fack": "Agent/TCP/Fack", "sackrh": "Agent/TCP/SackRH",
              "vegas": "Agent/TCP/Vegas", "rfc793edu": "Agent/TCP/RFC793edu", "linux": "Agent/TCP/Linux", "fulltcp": "Agent/TCP/FullTcp",
              "fulltcp_tahoe": "Agent/TCP/FullTcp/Tahoe", "fulltcp_newreno": "Agent/TCP/FullTcp/Newreno",
              "fulltcp_sack": "Agent/TCP/FullTcp/Sack"}

# Agent/TCP/FullTcp variables of one end (`full.from`, `full.to`); Newreno's and Sack's own only
# on those classes.
FULL_VARS = {
    "segsize": "segsize_",
    "segsperack": "segsperack_",
    "spa_thresh": "spa_thresh_",
    "tcprexmtthresh": "tcprexmtthresh_",
    "iss": "iss_",
    "nodelay": "nodelay_",
    "data_on_syn": "data_on_syn_",
    "dupseg_fix": "dupseg_fix_",
    "dupack_reset": "dupack_reset_",
    "interval_s": "interval_",
    "ts_option_size": "ts_option_size_",
    "reno_fastrecov": "reno_fastrecov_",
    "pipectrl": "pipectrl_",
    "open_cwnd_on_pack": "open_cwnd_on_pack_",
    "halfclose": "halfclose_",
    "nopredict": "nopredict_",
    "ecn_syn": "ecn_syn_",
    "ecn_syn_wait": "ecn_syn_wait_",
    "recov_maxburst": "recov_maxburst_",
    "clear_on_timeout": "clear_on_timeout_",
    "sack_block_size": "sack_block_size_",
    "sack_option_size": "sack_option_size_",
    "max_sack_blocks": "max_sack_blocks_",
    "sack_rtx_cthresh": "sack_rtx_cthresh_",
    "sack_rtx_bthresh": "sack_rtx_bthresh_",
    "sack_rtx_threshmode": "sack_rtx_threshmode_",
}
FULL_ONLY = {
    "fulltcp_newreno": {"recov_maxburst"},
    "fulltcp_sack": {"clear_on_timeout", "sack_block_size", "sack_option_size", "max_sack_blocks",
                     "sack_rtx_cthresh", "sack_rtx_bthresh", "sack_rtx_threshmode"},
}

# Agent/TCP/Linux's knobs that are no agent variable: the module (`select_ca`) and two
# TCP-Linux globals (`set_ca_default_param linux ...`).
LINUX_KNOBS = {"ca", "tcp_abc", "tcp_max_burst"}
# knobs of [tcp] not written as Agent/TCP class variables: ssthresh is set once the run is on
CLASS_SKIP = LINUX_KNOBS | {"ssthresh", "rbp", "rbp_scale", "rbp_rate_algorithm"}


def _same_linux_globals(s: dict, flows: list[int]) -> None:
    """tcp_abc and tcp_max_burst are TCP-Linux globals in ns-2 (`set_ca_default_param`); its
    per-agent `set_ca_param` writes them as ints through overlapping addresses and leaves other
    agents' values garbled. So every Linux flow of a scenario must agree on them."""
    for key in ("tcp_abc", "tcp_max_burst"):
        values = {s["flows"][fi]["params"][key] for fi in flows}
        if len(values) > 1:
            fi = next(fi for fi in flows if s["flows"][fi]["params"][key] != s["flows"][flows[0]]["params"][key])
            raise ValueError(f"flows[{fi}].tcp.{key}: ns-2 holds it for all its Linux agents; "
                             f"the Linux flows here differ ({sorted(values)})")


def _linux_setup(emit, agent: str, params: dict) -> None:
    """`select_ca` at 0 s, after `$ns run` has reset the agent (the module switches the agent's
    clock to 1 ms ticks, and the reset draws the clock's phase from the tick before). ns-2
    registers tcp_max_burst and sysctl_tcp_abc, unsigned chars laid out in that order, as
    `int` parameters: writing one also writes the three bytes after it. So both are written,
    tcp_max_burst first, whenever either differs from its default (3, 1)."""
    ca, max_burst, abc = params["ca"], params["tcp_max_burst"], params["tcp_abc"]
    emit(f'$ns at 0.0 "${agent} select_ca {ca}"')
    if (max_burst, abc) != (3, 1):
        emit(f'$ns at 0.0 "${agent} set_ca_default_param linux tcp_max_burst {max_burst}"')
        emit(f'$ns at 0.0 "${agent} set_ca_default_param linux sysctl_tcp_abc {abc}"')


def sink_class(sink: dict) -> str:
    """Agent/TCPSink, with /Sack1 for SACK blocks and /DelAck for delayed ACKs."""
    return ("Agent/TCPSink" + ("/Sack1" if sink["sack"] else "")
            + ("/DelAck" if sink["delack_interval_s"] is not None else ""))


def _num(value) -> str:
    """A number as Tcl reads it back: repr of a float is the same double, ints as is."""
    return repr(value) if isinstance(value, float) else str(int(value))


def _value(key: str, value) -> str:
    if isinstance(value, bool):
        if key in INT_SWITCHES:
            return "1" if value else "0"
        return "true" if value else "false"
    if key in INT_SECONDS:  # whole seconds (C++ ints in ns-2; the core checks that)
        return str(int(value))
    return _num(value)


def _set_all(emit, obj: str, values: dict, names: dict, where: str, skip=()) -> None:
    for key, value in values.items():
        if key in skip:
            continue
        if key not in names:
            raise ValueError(f"{where}.{key}: no ns-2 variable for this knob")
        emit(f"{obj} set {names[key]} {_value(key, value)}")


def _comment(text: str) -> str:
    """Text for a Tcl comment: JSON-quoted, so no newline or trailing backslash gets through."""
    return json.dumps(text)


def _tcl_string(s: str) -> str:
    """Quote a string for Tcl (file paths): braces keep it literal."""
    if any(c in s for c in "{}\\\n"):
        raise ValueError(f"path {s!r} cannot be quoted for Tcl")
    return "{" + s + "}"


# The on/off sources: tcplab's app name -> ns-2's class.
ON_OFF = {"exponential": "Application/Traffic/Exponential", "pareto": "Application/Traffic/Pareto"}


def _application(emit, s: dict, fi: int, appv: str, agent: str, is_tcp: bool) -> None:
    """The flow's application, attached to its agent."""
    flow = s["flows"][fi]
    app = flow["app"]
    if not is_tcp:
        # The UDP agent's packetSize_ is a *maximum* above which it fragments each message:
        # the source's packet size (a Telnet's packets are this size; a trace's bigger records
        # go as several packets).
        emit(f"${agent} set packetSize_ {flow.get('udp_packet_size', flow['size'])}")
    if app == "ftp":
        emit(f"set {appv} [new Application/FTP]")
    elif app == "telnet":
        emit(f"set {appv} [new Application/Telnet]")
        emit(f"${appv} set interval_ {_num(flow['interval_s'])}")
    elif app == "trace":
        # ns-2 reads a binary file of (gap in µs, bytes) pairs, 32-bit big-endian: the script
        # writes it where ns runs
        records = " ".join(f"{gap} {size}" for gap, size in s["traffic_traces"][flow["table"]])
        emit(f"set fd [open tcplab-trace-{fi}.bin w]")
        emit("fconfigure $fd -translation binary")
        emit(f"puts -nonewline $fd [binary format I* {{{records}}}]")
        emit("close $fd")
        emit(f"set tracefile{fi} [new Tracefile]")
        emit(f"$tracefile{fi} filename tcplab-trace-{fi}.bin")
        emit(f"set {appv} [new Application/Traffic/Trace]")
        emit(f"${appv} attach-tracefile $tracefile{fi}")
    else:
        emit(f"set {appv} [new {ON_OFF.get(app, 'Application/Traffic/CBR')}]")
        emit(f"${appv} set packetSize_ {flow['size']}")
        emit(f"${appv} set rate_ {int(flow['rate_bps'])}")
        if app in ON_OFF:
            emit(f"${appv} set burst_time_ {_num(flow['burst_time_s'])}")
            emit(f"${appv} set idle_time_ {_num(flow['idle_time_s'])}")
        if app == "pareto":
            emit(f"${appv} set shape_ {_num(flow['shape'])}")
        if app == "cbr" and flow.get("random"):
            emit(f"${appv} set random_ 1")
        if app == "cbr" and flow.get("packets") is not None:
            emit(f"${appv} set maxpkts_ {flow['packets']}")
    emit(f"${appv} attach-agent ${agent}")


def _attach(node: int, agent: str, port: int | None) -> str:
    """Attaches an agent to its node: at the scenario's port, or the lowest free one."""
    if port is None:
        return f"$ns attach-agent $n{node} ${agent}"
    return f"$n{node} attach ${agent} {port}"


def _delay_spikes(emit, s: dict) -> None:
    """Each delay spike as test-suite-frto.tcl makes one: a Delayer inserted in the link, blocked
    at the spike's start, and unblocked `$ns after` its length (scheduled as it starts)."""
    if not s["delay_spikes"]:
        return
    emit("proc delay_spike {delayer length} {")
    emit("    global ns")
    emit("    $delayer block")
    emit('    $ns after $length "$delayer unblock"')
    emit("}")
    delayers = {}
    for spike in s["delay_spikes"]:
        link = s["links"][spike["link"] // 2]
        a, b = (link["from"], link["to"])[::1 if spike["link"] % 2 == 0 else -1]
        if (a, b) not in delayers:
            delayers[(a, b)] = d = f"delayer{len(delayers)}"
            emit(f"set {d} [new Delayer]")
            emit(f"$ns insert-delayer $n{a} $n{b} ${d}")
        emit(f'$ns at {_num(spike["at_s"])} "delay_spike ${delayers[(a, b)]} {_num(spike["length_s"])}"')


def _losses(emit, s: dict) -> None:
    """Each loss model on a link as ns-2's suites build one: an ErrorModule Fid at the head of
    the link with the error model bound to the flow ids it counts. (A radio's models are made
    with its node: `_wireless_nodes`.)"""
    for i, loss in enumerate(s["losses"]):
        if "link" not in loss:
            continue
        link = s["links"][loss["link"] // 2]
        a, b = (link["from"], link["to"]) if loss["link"] % 2 == 0 else (link["to"], link["from"])
        emit(f"# loss model {i} on n{a}->n{b} (each new error module goes to the link's head)")
        emit(f"set em{i} [new ErrorModule Fid]")
        _error_model(emit, f"errmodel{i}", loss, i)
        emit(f"[$ns link $n{a} $n{b}] errormodule $em{i}")
        emit(f"$em{i} insert $errmodel{i}")
        emit(f"$em{i} default pass ;# flows it does not count go through")
        fids = loss["fids"] or sorted({f["fid"] for f in s["flows"]})
        for fid in fids:
            emit(f"$em{i} bind $errmodel{i} {fid}")
        emit("")


def _error_model(emit, var: str, loss: dict, i: int) -> None:
    """ns-2's error model for loss model `i`, in the Tcl variable `var`."""
    model = loss["model"]
    if model == "list":
        emit(f"set {var} [new ErrorModel/List]")
        emit(f"${var} unit pkt")
        emit(f"${var} droplist {{{' '.join(str(p) for p in loss['packets'])}}}")
    elif model == "ber" and loss.get("data_bits") is not None:
        # ns-2's bit unit: a packet counts as datapktsize bits when it has at least datapktsize
        # bytes, else as cntrlpktsize bits (FECstrength only counts errored bits for an FEC
        # module; any strength of 1 or more loses the same packets)
        emit(f"set {var} [new ErrorModel]")
        emit(f"${var} unit bit")
        emit(f"${var} set rate_ {_num(loss['ber'])}")
        emit(f"${var} FECstrength 1")
        emit(f"${var} datapktsize {loss['data_bits']}")
        emit(f"${var} cntrlpktsize {loss['control_bits']}")
    elif model == "multistate":
        # ErrorModel/MultiState over ErrorModel/Uniform states in packets, starting in the first
        states = loss["states"]
        for j, st in enumerate(states):
            emit(f"set {var}_state{j} [new ErrorModel/Uniform {_num(st['rate'])} pkt]")
        names = " ".join(f"${var}_state{j}" for j in range(len(states)))
        periods = " ".join(_num(st["period_s"]) for st in states)
        matrix = " ".join("{" + " ".join(_num(t) for t in row) + "}" for row in loss["transitions"])
        step = "time" if loss["by_time"] else "pkt"
        emit(f"set {var} [new ErrorModel/MultiState [list {names}] {{{periods}}} {{{matrix}}} pkt {step}"
             f" {len(states)} ${var}_state0]")
    elif model in ("uniform", "ber"):
        # A uniform variable of ns-2's default generator, which tcplab's rng = "ns2" shares.
        # A bit error rate goes in as the byte error rate it implies, computed as tcplab
        # computes it: ns-2's bit unit ignores the packet's size (its datapktsize_ decides).
        emit(f"set {var} [new ErrorModel]")
        if model == "uniform":
            emit(f"${var} unit pkt")
            emit(f"${var} set rate_ {_num(loss['rate'])}")
        else:
            emit(f"${var} unit byte")
            emit(f"${var} set rate_ [expr {{1.0 - pow(1.0 - {_num(loss['ber'])}, 8.0)}}]")
        emit(f"${var} ranvar [new RandomVariable/Uniform]")
    elif model == "periodic":
        emit(f"set {var} [new ErrorModel/Periodic]")
        emit(f"${var} unit pkt")
        emit(f"${var} set offset_ {_num(float(loss['offset']))}")
        emit(f"${var} set period_ {_num(float(loss['period']))}")
        emit(f"${var} set burstlen_ {_num(float(loss['burst']))}")
    else:
        raise ValueError(f"losses[{i}].model: ns-2 has no per-packet Gilbert-Elliott model")
    if model == "multistate" and loss["action"] != "drop":
        raise ValueError(f"losses[{i}].action: ns-2's ErrorModel/MultiState decides by its states' models;"
                         " the translation writes drops only")
    if loss["action"] == "mark":
        emit(f"${var} set markecn_ true")
    elif loss["action"] == "delay":
        emit(f"${var} set delay_pkt_ true")
        emit(f"${var} set delay_ {_num(loss['delay_s'])}")


def _radio_error_procs(emit, s: dict) -> dict[tuple[int, bool], str]:
    """For each radio with a loss model, a Tcl proc making its ErrorModel, which node-config's
    -IncomingErrProc (or, for an outgoing model, -OutgoingErrProc) calls as the node is made:
    ns-2 puts the one between the PHY and the MAC, where it judges every frame the radio senses
    (tcplab's ns2 profile does the same), the other between the MAC and the PHY.
    (node, outgoing) -> proc."""
    procs = {}
    for i, loss in enumerate(s["losses"]):
        name = f"radio_errmodel{i}"
        body: list[str] = []
        _error_model(body.append, "em", loss, i)
        emit(f"proc {name} {{}} {{")
        for line in body:
            emit(f"    {line}")
        emit("    return $em")
        emit("}")
        procs[(loss["node"], loss["outgoing"])] = name
    if procs:
        # node-config keeps a proc once given one (it ignores -IncomingErrProc ""): the nodes
        # without a model get one that makes none
        emit('proc no_radio_errmodel {} { return "" }')
    return procs


# ns-2.35's wireless defaults (tcl/lib/ns-default.tcl): a WLAN knob -> the class variable it
# sets and ns-2's value; the translation writes only those that differ.
MAC_VARS = {"rts_threshold": ("RTSThreshold_", 0), "cw_min": ("CWMin_", 31), "cw_max": ("CWMax_", 1023),
            "short_retry_limit": ("ShortRetryLimit_", 7), "long_retry_limit": ("LongRetryLimit_", 4)}
TIMING_VARS = {"slot": ("SlotTime_", 20e-6), "sifs": ("SIFS_", 10e-6), "data_rate": ("dataRate_", 1e6),
               "basic_rate": ("basicRate_", 1e6)}
RADIO_VARS = {"tx_power": ("Phy/WirelessPhy", "Pt_", 0.28183815),
              "frequency": ("Phy/WirelessPhy", "freq_", 914e6),
              "rx_threshold": ("Phy/WirelessPhy", "RXThresh_", 3.652e-10),
              "cs_threshold": ("Phy/WirelessPhy", "CSThresh_", 1.559e-11),
              "capture_ratio": ("Phy/WirelessPhy", "CPThresh_", 10.0),
              "system_loss": ("Phy/WirelessPhy", "L_", 1.0),
              "antenna_height": ("Antenna/OmniAntenna", "Z_", 1.5)}
PROPAGATION = {"two_ray_ground": "Propagation/TwoRayGround", "free_space": "Propagation/FreeSpace"}


def _check_wireless(s: dict, nam_path: str | None) -> None:
    """Refuses, naming the field, what an ad hoc WLAN of ns-2's mobile nodes (DumbAgent, one
    channel, Mac/802_11 with ns-2's defaults) cannot express, or what tcplab does not model as
    ns-2 does."""
    wlans = s["wlans"]
    if len(wlans) > 1:
        raise ValueError("wlans[1]: the ns-2 translation covers one WLAN (one channel, every node on it)")
    w = wlans[0]
    if w.get("ext") is not None:
        if s["flows"]:
            raise ValueError("flows: over Mac/802_11Ext tcplab's radios send without ARP, ns-2's with it;"
                             " only Agent/PBC traffic ([[pbc]]) is translated there")
        if s.get("losses"):
            raise ValueError("losses: error models on Mac/802_11Ext radios are not modelled")
        if w["ext"]["monitor_threshold"] == 0 and w["ext"].get("nakagami") is None:
            raise ValueError("wlans[0].ext.power_monitor_threshold: 0 makes ns-2 divide by zero (its channel's"
                             " reach, TwoRayGround/FreeSpace getDist); only Nakagami's reach is unbounded")
    if not w["ns2_backoff"]:
        raise ValueError('wlans[0].profile: the standard profile has no ns-2 counterpart (ns-2\'s Mac/802_11'
                         ' is the ns2 profile: use profile = "ns2")')
    if w["access_point"] is not None:
        raise ValueError("wlans[0].access_point: ns-2's infrastructure mode (beacons, scanning, association,"
                         " the AP relaying) is not tcplab's access point; only ad hoc WLANs are translated")
    if w["timing"]["mac_overhead"] != 34:
        raise ValueError("wlans[0].mac_overhead: ns-2's 802.11 MAC header and FCS are 34 bytes, fixed")
    if w["timing"]["preamble"] != "long":
        raise ValueError("wlans[0].preamble: ns-2 sends the PLCP preamble and header at one rate and counts"
                         " them into every frame's size; a short preamble is not translated")
    if w["radio"]["light"] != 3e8:
        raise ValueError("wlans[0].profile: ns-2's speed of light is 3e8 m/s (the ns2 profile's)")
    # base stations (DSDV only, validated) join the WLAN to wired nodes: hierarchical addresses
    base_stations = w.get("base_stations", [])
    if s["links"] and not base_stations:
        raise ValueError("links: wired links beside a WLAN need a base station (wlans[0].base_station,"
                         ' with routing = "dsdv")')
    if base_stations:
        _check_hierarchical(s)
    if s["mobile_nodes"]:
        raise ValueError("mobile_nodes: ns-2.35 has no Mobile IPv6")
    for i, name in enumerate(s["nodes"]):
        if i not in w["nodes"] and not base_stations:
            raise ValueError(f"nodes: {name!r} has no radio; ns-2's mobile nodes of a WLAN are all its nodes"
                             " (wired nodes need a base station: wlans[0].base_station)")
    with_model: set[tuple[int, bool]] = set()
    for i, loss in enumerate(s["losses"]):
        if loss["fids"]:
            raise ValueError(f"losses[{i}].flows: ns-2's error model on a radio judges every frame the radio"
                             " senses, whatever its flow")
        if (loss["node"], loss["outgoing"]) in with_model:
            raise ValueError(f"losses[{i}].node: ns-2 takes one error model per radio and direction")
        if loss["model"] == "gilbert":
            raise ValueError(f"losses[{i}].model: ns-2 has no per-packet Gilbert-Elliott model")
        with_model.add((loss["node"], loss["outgoing"]))
    for i, d in enumerate(s.get("set_dist", [])):
        for node in (d["a"], d["b"]):
            if node >= len(w["nodes"]):
                raise ValueError(f"set_dist[{i}]: ns-2's God numbers the WLAN's nodes from 0; {s['nodes'][node]!r}"
                                 f" is node {node}, beyond its {len(w['nodes'])}")
    for node, (x, y) in zip(w["nodes"], w["positions"]):
        if x < 0 or y < 0:
            raise ValueError(f"positions.{s['nodes'][node]}: ns-2's topography starts at (0, 0); a node"
                             " cannot stand at negative x or y")
    for i, m in enumerate(s["moves"]):
        if m["to"][0] <= 0 or m["to"][1] <= 0:
            raise ValueError(f"moves[{i}].to: ns-2's setdest refuses a destination on or beyond the"
                             " topography's edge (x and y above 0)")
    if s["traces"]["tcp_header"]:
        raise ValueError("output.tcp_header: a wireless trace prints its own TCP fields (show_tcphdr_ is"
                         " for wired links)")
    if s["traces"]["events"]:
        raise ValueError("output.events: ns-2's event lines are written by wired links' traces only")
    if s["trace_links"] is not None:
        raise ValueError("output.trace_links: a WLAN has no links to trace; its nodes trace their layers")
    if nam_path is not None:
        raise ValueError("output.trace: the NAM trace of a WLAN is not translated")


def _check_hierarchical(s: dict) -> None:
    """Refuses, naming the field, the wired-cum-wireless layouts ns-2.35 crashes on or routes
    otherwise than tcplab's shortest paths. ns-2's hierarchical routing finds a subnet
    (domain.cluster) first, then the node in it; tcplab's routes are the same when each wired
    subnet is linked within itself, the subnets' links make a tree, and each base station takes
    one wired link."""
    w = s["wlans"][0]
    radios = set(w["nodes"])
    wired = [i for i in range(len(s["nodes"])) if i not in radios]
    if wired and max(wired) > min(radios):
        raise ValueError("nodes: ns-2.35 crashes when a wired node is made after a mobile node: list the"
                         " wired nodes first")
    for k, bs in enumerate(w["base_stations"]):
        field = "wlans[0].base_station" if len(w["base_stations"]) == 1 else f"wlans[0].base_stations[{k}].node"
        if any(m < bs["node"] for m in bs["stations"]):
            raise ValueError(f"{field}: ns-2.35 crashes when a station is made before"
                             " its base station: list the base station before its stations in `nodes`")
        at_base = [i for i, link in enumerate(s["links"]) if bs["node"] in (link["from"], link["to"])]
        if len(at_base) > 1:
            raise ValueError(f"links[{at_base[1]}]: ns-2's hierarchical routing reaches a base station's"
                             " subnet by one route, not tcplab's shortest paths: a base station takes one"
                             " wired link")
    subnet = {i: tuple(a[:2]) for i, a in enumerate(s["addresses"])}
    inside = [(link["from"], link["to"]) for link in s["links"] if subnet[link["from"]] == subnet[link["to"]]]
    for group in {subnet[i] for i in wired}:
        members = [i for i in wired if subnet[i] == group]
        if len(_component(members[0], inside)) < len(members):
            raise ValueError("links: ns-2's hierarchical routing needs the wired nodes of a subnet"
                             f" ({group[0]}.{group[1]}) linked among themselves, not only through another")
    # the links between subnets, one per pair of subnets and no cycle: a tree of subnets
    seen: set[tuple[int, int]] = set()
    between: list[tuple[tuple, tuple]] = []
    for i, link in enumerate(s["links"]):
        a, b = subnet[link["from"]], subnet[link["to"]]
        if a == b:
            continue
        if a in _component(b, between) or (a, b) in seen:
            raise ValueError(f"links[{i}]: ns-2's hierarchical routing reaches a subnet by one route; links"
                             " between subnets that close a loop are not translated (tcplab's routes are"
                             " shortest paths)")
        seen.update({(a, b), (b, a)})
        between.append((a, b))


def _component(start, edges) -> set:
    """The vertices that `edges` (pairs) connect to `start`, itself included."""
    reach, todo = {start}, [start]
    while todo:
        v = todo.pop()
        for a, b in edges:
            for x, y in ((a, b), (b, a)):
                if x == v and y not in reach:
                    reach.add(y)
                    todo.append(y)
    return reach


def _mac_802_11_settings(emit, w: dict) -> None:
    """Mac/802_11's and Phy/WirelessPhy's class variables where they differ from ns-2's defaults."""
    for key, (var, default) in MAC_VARS.items():
        if w[key] != default:
            emit(f"Mac/802_11 set {var} {w[key]}")
    for key, (var, default) in TIMING_VARS.items():
        value = w["timing"][key]
        if value != default:
            emit(f"Mac/802_11 set {var} {int(value) if key.endswith('rate') else _num(value)}")
    for key, (cls, var, default) in RADIO_VARS.items():
        if w["radio"][key] != default:
            emit(f"{cls} set {var} {_num(w['radio'][key])}")
    if not w["backoff_when_idle"]:
        emit("Mac/802_11 set bugFix_timer_ false ;# a defer of DIFS + random slots on an idle medium")


def _ext_settings(emit, w: dict) -> None:
    """Mac/802_11Ext's, Phy/WirelessPhyExt's and Propagation/Nakagami's class variables, all of
    them (the examples set them all too)."""
    e, radio = w["ext"], w["radio"]
    mac = {"CWMin_": w["cw_min"], "CWMax_": w["cw_max"], "SlotTime_": e["slot"], "SIFS_": e["sifs"],
           "ShortRetryLimit_": w["short_retry_limit"], "LongRetryLimit_": w["long_retry_limit"],
           "HeaderDuration_": e["header_duration"], "SymbolDuration_": e["symbol_duration"],
           "BasicModulationScheme_": e["basic_scheme"], "RTSThreshold_": w["rts_threshold"]}
    for var, value in mac.items():
        emit(f"Mac/802_11Ext set {var} {_num(value)}")
    emit(f"Mac/802_11Ext set use_802_11a_flag_ {'true' if e['use_802_11a'] else 'false'}")
    phy = {"CSThresh_": e["cs_threshold"], "Pt_": radio["tx_power"], "freq_": radio["frequency"],
           "noise_floor_": e["noise_floor"], "L_": radio["system_loss"], "PowerMonitorThresh_": e["monitor_threshold"],
           "HeaderDuration_": e["header_duration"], "BasicModulationScheme_": e["basic_scheme"],
           "PreambleCaptureSwitch_": int(e["preamble_capture"]), "DataCaptureSwitch_": int(e["data_capture"]),
           "SINR_PreambleCapture_": e["sinr_preamble_capture"], "SINR_DataCapture_": e["sinr_data_capture"]}
    for var, value in phy.items():
        emit(f"Phy/WirelessPhyExt set {var} {_num(value)}")
    n = e.get("nakagami")
    if n is not None:
        for i in range(3):
            emit(f"Propagation/Nakagami set gamma{i}_ {_num(n['gamma'][i])}")
            emit(f"Propagation/Nakagami set m{i}_ {_num(n['m'][i])}")
        for i in range(2):
            emit(f"Propagation/Nakagami set d{i}_gamma_ {_num(n['gamma_distances'][i])}")
            emit(f"Propagation/Nakagami set d{i}_m_ {_num(n['m_distances'][i])}")
        emit(f"Propagation/Nakagami set use_nakagami_dist_ {'true' if n['fading'] else 'false'}")


def _pbc_agents(emit, s: dict) -> None:
    """The [[pbc]] agents (Agent/PBC), each turned on in turn (a periodic one draws its start
    as it is), and their sends, each at its own payload."""
    for i, a in enumerate(s.get("pbc", [])):
        emit(f"set pbc{i} [new Agent/PBC]")
        emit(f"$ns attach-agent $n{a['node']} $pbc{i}")
        emit(f"$pbc{i} set payloadSize {a['payload']}")
        emit(f"$pbc{i} set modulationScheme {a['modulation']}")
        if a["periodic"] is not None:
            interval, variance = a["periodic"]
            emit(f"$pbc{i} set periodicBroadcastInterval {_num(float(interval))}")
            emit(f"$pbc{i} set periodicBroadcastVariance {_num(float(variance))}")
            emit(f"$pbc{i} PeriodicBroadcast ON")
    for i, a in enumerate(s.get("pbc", [])):
        for send in a["sends"]:
            what = "singleBroadcast" if send["to"] is None else f"unicast {send['to']}"
            emit(f'$ns at {_num(send["at_s"])} "$pbc{i} set payloadSize {send["payload"]}; $pbc{i} {what};'
                 f' $pbc{i} set payloadSize {a["payload"]}"')


def _wireless_nodes(emit, s: dict, traced: bool) -> None:
    """The WLAN as ns-2's mobile nodes: Mac/802_11's class variables where they differ from
    ns-2's defaults, a flat topography holding every position, God, node-config (DumbAgent:
    no routing packets, or DSDV with its router trace when `routing = "dsdv"`; LL, ARP, PriQueue, WirelessPhy, OmniAntenna as ns-2's wireless scripts
    use them; agent and MAC traces when `traced`: ns-2 refuses them without a trace file), the
    nodes at their positions, infrastructure mode's access points and scans (`$mac ap`,
    `ScanType`), and their moves as setdest."""
    w = s["wlans"][0]
    ext = w.get("ext") is not None
    mode = "infrastructure mode" if w.get("infrastructure") is not None else "ad hoc"
    emit(f"# WLAN {_comment(w['name'])}: {mode}, ns-2's mobile nodes" + (", Mac/802_11Ext" if ext else ""))
    if ext:
        _ext_settings(emit, w)
    else:
        _mac_802_11_settings(emit, w)
    infra = w.get("infrastructure")
    if infra is not None and infra["beacon_interval"] != 0.1:
        emit(f"Mac/802_11 set BeaconInterval_ {_num(infra['beacon_interval'])}")
    xs = [p[0] for p in w["positions"]] + [m["to"][0] for m in s["moves"]]
    ys = [p[1] for p in w["positions"]] + [m["to"][1] for m in s["moves"]]
    # setdest takes destinations strictly inside the grid
    size = lambda v: max(500, int(max(v)) + 1)
    emit("set topo [new Topography]")
    emit(f"$topo load_flatgrid {size(xs)} {size(ys)}")
    emit(f"create-god {len(w['nodes'])}")
    # God's hop counts, which the trace prints for data packets (opt_num_forwards)
    for d in s.get("set_dist", []):
        command = f"[God instance] set-dist {d['a']} {d['b']} {d['hops']}"
        emit(command if d["at"] == 0 else f'$ns at {_num(d["at"])} "{command}"')
    hier = s.get("addresses")
    if hier is not None:
        # AddrParams: the domains, each one's clusters, each cluster's nodes (DSDV.md §5)
        domains = 1 + max(a[0] for a in hier)
        clusters = [1 + max((a[1] for a in hier if a[0] == d), default=0) for d in range(domains)]
        sizes = [1 + max((a[2] for a in hier if a[:2] == [d, c]), default=0)
                 for d in range(domains) for c in range(clusters[d])]
        emit("$ns node-config -addressType hierarchical")
        emit(f"AddrParams set domain_num_ {domains}")
        emit(f"AddrParams set cluster_num_ {{{' '.join(map(str, clusters))}}}")
        emit(f"AddrParams set nodes_num_ {{{' '.join(map(str, sizes))}}}")
    # routing = "dsdv": ns-2's DSDV agent, whose lines (RTR) the router trace writes
    dsdv = w.get("dsdv", False)
    routing = "DSDV" if dsdv else "DumbAgent"
    mac_type, phy_type = ("Mac/802_11Ext", "Phy/WirelessPhyExt") if ext else ("Mac/802_11", "Phy/WirelessPhy")
    emit(f"$ns node-config -adhocRouting {routing} -llType LL -macType {mac_type} -ifqType Queue/DropTail/PriQueue \\")
    prop = PROPAGATION[w["radio"]["propagation"]]
    if ext and w["ext"].get("nakagami") is not None:
        prop = "Propagation/Nakagami"
    emit(f"    -ifqLen {w['queue_limit']} -antType Antenna/OmniAntenna -propType {prop} \\")
    on = "ON" if traced and s.get("mac_trace", True) else "OFF"
    agents = "ON" if traced and s.get("agent_trace", True) else "OFF"
    emit(f"    -phyType {phy_type} -channelType Channel/WirelessChannel -topoInstance $topo -agentTrace {agents} \\")
    eot = "ON" if s.get("eot_trace") else "OFF"
    router = "ON" if traced and dsdv and s.get("router_trace", True) else "OFF"
    phy = "ON" if traced and s.get("phy_trace", False) else "OFF"
    emit(f"    -routerTrace {router} -macTrace {on} -phyTrace {phy} -movementTrace OFF -eotTrace {eot}")
    errprocs = _radio_error_procs(emit, s)
    emit("# nodes: ns-2 ids follow creation order = position in `nodes`")
    current = None
    kind = "mobile"
    base_stations = {bs["node"]: bs for bs in w.get("base_stations", [])}
    for i, name in enumerate(s["nodes"]):
        procs = tuple(errprocs.get((i, out), "no_radio_errmodel") for out in (False, True))
        if errprocs and procs != current:
            current = procs
            outgoing = f" -OutgoingErrProc {procs[1]}" if any(out for _, out in errprocs) else ""
            emit(f"$ns node-config -IncomingErrProc {procs[0]}{outgoing}")
        if hier is not None:
            # a wired node has no routing agent; the base station is a mobile node with wired routing
            now = "wired" if i not in w["nodes"] else "base" if i in base_stations else "mobile"
            if now != kind and now == "wired":
                # node-config passes an empty -adhocRouting over: no agent, set directly
                emit('$ns adhocRouting ""')
                emit("$ns node-config -wiredRouting OFF")
            elif now != kind:
                emit(f"$ns node-config -adhocRouting {routing} -wiredRouting {'ON' if now == 'base' else 'OFF'}")
            kind = now
        emit(f"# n{i} = {_comment(name)}")
        address = "" if hier is None else " " + ".".join(map(str, hier[i]))
        emit(f"set n{i} [$ns node{address}]")
    for bs in base_stations.values():
        for node in bs["stations"]:
            emit(f"$n{node} base-station [AddrParams addr2id [$n{bs['node']} node-addr]]")
    for node, (x, y) in zip(w["nodes"], w["positions"]):
        emit(f"$n{node} random-motion 0")
        emit(f"$n{node} set X_ {_num(float(x))}")
        emit(f"$n{node} set Y_ {_num(float(y))}")
        emit(f"$n{node} set Z_ 0.0")
    if infra is not None:
        # infrastructure mode: each access point draws its first beacon's slots as it is made
        # one, before any agent exists (tcplab draws them in this order too)
        for ap in infra["access_points"]:
            emit(f"[$n{ap} getMac 0] ap [[$n{ap} getMac 0] id]")
        for scan in infra["scans"]:
            command = f"[$n{scan['node']} getMac 0] ScanType {'ACTIVE' if scan['active'] else 'PASSIVE'}"
            emit(command if scan["at"] == 0 else f'$ns at {_num(scan["at"])} "{command}"')
    for m in s["moves"]:
        emit(f'$ns at {_num(m["at"])} "$n{m["node"]} setdest {_num(float(m["to"][0]))} {_num(float(m["to"][1]))}'
             f' {_num(float(m["speed"]))}"')
    _pbc_agents(emit, s)


def scenario_to_tcl(normalized: dict, trace_path: str | None, cwnd_path: str | None = None,
                    nam_path: str | None = None) -> str:
    """Return an ns-2.35 Tcl script building `normalized` (the output of tcplab.validate),
    tracing the links of `output.trace_links` (every link by default) to trace_path (no trace
    when None), the cwnd_ of the TCP senders of `output.trace_flows` (all by default) to
    cwnd_path and the NAM trace to nam_path when given. At the end it prints, per TCP flow, the highest segment the
    receiver acknowledged and the data packets sent: "flow <i> ack <ack_> sent <ndatapack_>"."""
    if "duration_s" not in normalized:
        raise TypeError("scenario_to_tcl takes the normalized scenario of tcplab.validate()")
    s = normalized
    out: list[str] = []
    emit = out.append
    emit("# Generated by tcplab.ns2.scenario_to_tcl for ns-2.35")
    emit(f"# scenario: {_comment(s['name'])}")
    if normalized["rng"] != "ns2":
        raise ValueError(f'rng: {normalized["rng"]!r} has no ns-2 equivalent (use rng = "ns2")')
    wireless = bool(normalized.get("wlans"))
    if wireless:
        _check_wireless(s, nam_path)
    emit("set ns [new Simulator]")
    # the [tcp] table is Agent/TCP's class variables: an agent on a mobile node keeps the reset
    # they gave it at its creation (the instance's variables come after)
    class_vars = {k: v for k, v in s.get("tcp_class", {}).items()
                  if k not in CLASS_SKIP and not any(k in knobs for knobs in VARIANT_ONLY.values())}
    _set_all(emit, "Agent/TCP", class_vars, TCP_VARS, "tcp")
    # tcplab's rng = "ns2" draws from ns-2's default generator, seeded the same way.
    if normalized["seed"] != 1:
        emit(f"$defaultRNG seed {int(normalized['seed'])}")
    if wireless and s["wireless_format"] == "new" and trace_path is not None:
        emit("$ns use-newtrace ;# ns-2's new wireless trace format")
    # trace-all must precede link creation: links only get trace objects if a
    # trace file is registered when they are built (and read show_tcphdr_ then).
    if s["traces"]["tcp_header"]:
        emit("Trace set show_tcphdr_ 1")
    # output.trace_links: each listed direction gets trace-queue right after its link is
    # built, where trace-all would have put its trace objects.
    only = {tuple(d) for d in s["trace_links"]} if s["trace_links"] is not None else None
    if trace_path is not None:
        emit(f"set tracefd [open {_tcl_string(trace_path)} w]")
        if only is None:
            emit("$ns trace-all $tracefd")
    elif wireless:
        # ns-2 builds no mobile node without a trace file; with every trace off below, only
        # drops would reach it
        emit("$ns trace-all [open /dev/null w]")
    if nam_path is not None:
        emit(f"set namfd [open {_tcl_string(nam_path)} w]")
        emit("$ns namtrace-all $namfd")
    if s["traces"]["events"] and trace_path is not None:
        # without trace-all, E lines need the file named
        target = " $tracefd" if only is not None else ""
        emit(f"$ns eventtrace-all{target} ;# TCP agents created from here on write E lines")
    if cwnd_path is not None:
        emit(f"set cwndfd [open {_tcl_string(cwnd_path)} w]")
    emit("")
    if wireless:
        _wireless_nodes(emit, s, trace_path is not None)
    else:
        emit("# nodes: ns-2 ids follow creation order = position in `nodes`")
        for i, name in enumerate(s["nodes"]):
            emit(f"# n{i} = {_comment(name)}")
            emit(f"set n{i} [$ns node]")
    emit("")

    for li, link in enumerate(s["links"]):
        a, b = link["from"], link["to"]
        queue = link["queue"]
        qtype = {"droptail": "DropTail", "red": "RED"}[queue["kind"]]
        emit(f"$ns duplex-link $n{a} $n{b} {int(link['bandwidth_bps'])} {_num(link['delay_s'])} {qtype}")
        emit(f"$ns queue-limit $n{a} $n{b} {queue['limit']}")
        emit(f"$ns queue-limit $n{b} $n{a} {link['reverse_limit']}")
        if trace_path is not None and only is not None:
            for x, y in ((a, b), (b, a)):
                if (x, y) in only:
                    emit(f"$ns trace-queue $n{x} $n{y} $tracefd")
        # Per-link knobs go on the two queue objects, not the class (class defaults would leak
        # into every other link); a DropTail queue's only when it counts bytes; reverse_red: the
        # to->from RED queue's own (all of them, as normalized).
        knobs = {k: v for k, v in queue.items() if k not in ("kind", "limit")}
        if "ecn_threshold" in knobs:
            raise ValueError(f"links[{li}].droptail.ecn_threshold: ns-2's DropTail has no marking threshold")
        if queue["kind"] == "red" or queue.get("queue_in_bytes"):
            names = RED_VARS if queue["kind"] == "red" else DROPTAIL_VARS
            reverse = (link.get("reverse_red") or knobs) if queue["kind"] == "red" else knobs
            for x, y, k in ((a, b, knobs), (b, a, reverse)):
                _set_all(emit, f"[[$ns link $n{x} $n{y}] queue]", k, names, f"links[{li}].queue")
    emit("")

    tcp_agents = []
    for fi, flow in enumerate(s["flows"]):
        src, dst = flow["from"], flow["to"]
        is_tcp = flow["transport"] == "tcp"
        agent, sink, appv = f"agent{fi}", f"sink{fi}", f"app{fi}"
        emit(f"# flow {fi}: {_comment(flow['name'])}")
        if is_tcp:
            if flow["profile"] != "ns2":
                raise ValueError(f"flows[{fi}].profile: the {flow['profile']} profile has no ns-2 agent (use profile = \"ns2\")")
            if "pacing" in flow:
                raise ValueError(f"flows[{fi}].pacing: ns-2 has no packet spacing or gap pacing (its RBP is tcp.rbp)")
            variant = flow["variant"]
            rbp = flow["params"]["rbp"]  # the RBP subclass paces after idle periods
            emit(f"set {agent} [new {TCP_AGENTS[variant]}{'/RBP' if rbp else ''}]")
        else:
            emit(f"set {agent} [new Agent/UDP]")
        emit(_attach(src, agent, flow.get("from_port")))
        full = flow.get("full")
        if full is not None:
            emit(f"set {sink} [new {TCP_AGENTS[variant]}]")
        elif is_tcp:
            emit(f"set {sink} [new {sink_class(flow['sink'])}]")
            if flow["sink"]["delack_interval_s"] is not None:
                emit(f"${sink} set interval_ {_num(flow['sink']['delack_interval_s'])}")
            knobs = {k: flow["sink"][k] for k in SINK_VARS}
            _set_all(emit, f"${sink}", knobs, SINK_VARS, f"flows[{fi}].sink")
        else:
            emit(f"set {sink} [new Agent/Null]")
        emit(_attach(dst, sink, flow.get("to_port")))
        emit(f"$ns connect ${agent} ${sink}")
        emit(f"${agent} set fid_ {flow['fid']}")
        if full is not None:
            emit(f"${sink} set fid_ {flow['fid']}")
            if full["listen"]:
                emit(f"${sink} listen")

        if is_tcp:
            skip = set().union(*(knobs for v, knobs in VARIANT_ONLY.items() if v != variant)) | {"rbp"}
            skip |= LINUX_KNOBS
            if not rbp:
                skip |= {"rbp_scale", "rbp_rate_algorithm"}
            elif variant == "reno":
                skip.add("rbp_rate_algorithm")  # Reno/RBP always paces by cwnd
            # ssthresh: `$ns run` resets ssthresh_ to window_, so it is set once the run is on
            _set_all(emit, f"${agent}", flow["params"], TCP_VARS, f"flows[{fi}].params", skip | {"ssthresh"})
            tcp_agents.append((fi, agent))
            if full is not None:
                # the other end is an agent of the same class, with its own variables
                _set_all(emit, f"${sink}", full["to_params"], TCP_VARS, f"flows[{fi}].full.to_params",
                         skip | {"ssthresh"})
                full_skip = set().union(*(k for v, k in FULL_ONLY.items() if v != variant))
                for end, obj in (("from", agent), ("to", sink)):
                    _set_all(emit, f"${obj}", full[end], FULL_VARS, f"flows[{fi}].full.{end}", full_skip)

        _application(emit, s, fi, appv, agent, is_tcp)
        if any(a["flow"] == fi and a["end"] == "to" for a in s["actions"]):
            emit(f"set {appv}to [new Application/FTP] ;# the FullTcp peer's")
            emit(f"${appv}to attach-agent ${sink}")
        emit("")

    _losses(emit, s)
    _delay_spikes(emit, s)
    # the knob ssthresh (0: not set): `$ns run` resets ssthresh_ to window_, so it is set at 0.0
    linux = [(fi, agent) for fi, agent in tcp_agents if s["flows"][fi]["variant"] == "linux"]
    _same_linux_globals(s, [fi for fi, _ in linux])
    for fi, agent in linux:
        _linux_setup(emit, agent, s["flows"][fi]["params"])
    for fi, agent in tcp_agents:
        if s["flows"][fi]["params"]["ssthresh"] > 0:
            emit(f'$ns at 0.0 "${agent} set ssthresh_ {s["flows"][fi]["params"]["ssthresh"]}"')
    emit("# what the applications do, in tcplab's scheduling order")
    for a in s["actions"]:
        flow = s["flows"][a["flow"]]
        what = a["do"]
        if what == "start" and flow["app"] == "ftp" and flow["packets"] is not None:
            # `produce n` = agent advance n (curseq_ = n): seqnos 0..n go out, i.e.
            # with syn_ on the 40-B SYN (seqno 0) plus n data segments. [checked on ns]
            what = f"produce {flow['packets']}"
        elif what in ("produce", "producemore"):
            what = f"{what} {a['packets']}"
        elif what == "set_interval":
            what = f"set interval_ {_num(a['interval_s'])}"
        elif what == "set_cwnd":
            emit(f'$ns at {_num(a["at_s"])} "$agent{a["flow"]} set cwnd_ {a["cwnd"]}"')
            continue
        peer = a["end"] == "to"
        if what in ("close", "advance_bytes"):
            # FullTcp's own commands, on the agent itself
            obj = f"$sink{a['flow']}" if peer else f"$agent{a['flow']}"
            what = "close" if what == "close" else f"advance-bytes {a['bytes']}"
        elif what in ("reset", "reset_sink"):
            # reset goes to the sender agent, reset_sink to the sink
            obj, what = (f"$agent{a['flow']}" if what == "reset" else f"$sink{a['flow']}"), "reset"
        else:
            obj = f"$app{a['flow']}" + ("to" if peer else "")
        emit(f'$ns at {_num(a["at_s"])} "{obj} {what}"')
    for r in s.get("resets", []):
        emit(f'$ns at {_num(r["at_s"])} "$n{r["node"]} reset"')
    emit("")

    # output.trace_flows: only those flows' senders write to the cwnd trace
    cwnd_agents = [agent for fi, agent in tcp_agents if s["trace_flows"] is None or fi in s["trace_flows"]]
    if cwnd_path is not None and cwnd_agents:
        emit("# cwnd_ trace of the TCP senders (one line per change)")
        for agent in cwnd_agents:
            emit(f"${agent} attach $cwndfd")
            emit(f"${agent} trace cwnd_")
        emit("")

    globs = "ns" + (" tracefd" if trace_path is not None else "") + (" cwndfd" if cwnd_path is not None else "")
    globs += " namfd" if nam_path is not None else ""
    globs += "".join(f" {agent}" for _, agent in tcp_agents)
    emit("proc finish {} {")
    emit(f"    global {globs}")
    for fi, agent in tcp_agents:
        emit(f'    puts "flow {fi} ack [${agent} set ack_] sent [${agent} set ndatapack_]"')
    if trace_path is not None or nam_path is not None:
        emit("    $ns flush-trace")
    if trace_path is not None:
        emit("    close $tracefd")
    if cwnd_path is not None:
        emit("    close $cwndfd")
    if nam_path is not None:
        emit("    close $namfd")
    emit("    exit 0")
    emit("}")
    emit(f'$ns at {_num(s["duration_s"])} "finish"')
    emit("$ns run")
    return "\n".join(out) + "\n"


def ns_environment() -> dict:
    """The environment to run ns in. Some agents read members their constructors never set
    (FackTcpAgent::fastrecov_, Sack1TcpAgent::timeout_), so ns-2's answer would hang on what
    the heap held before. Here glibc hands out all memory zeroed, the value tcplab takes those
    members to hold: MALLOC_PERTURB_=255 clears each chunk it allocates, and without the
    per-thread cache every allocation goes through that path."""
    return {**os.environ, "MALLOC_PERTURB_": "255", "GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"}


def run_ns2(scenario, workdir: str, timeout: float = 600.0, ns: str | None = None,
            cwnd: bool = True, nam: bool = False) -> dict:
    """Validate `scenario` (whatever tcplab.validate accepts: path, TOML text, dict), write
    scenario.tcl into workdir, run ns-2 there and return the paths.

    Returns {"tcl": ..., "trace": ..., "cwnd": ... or None, "nam": ... or None, "stdout": text,
    "stderr": text}.
    Raises tcplab.ScenarioError for an invalid scenario, and NS2Error if `ns` is not installed
    (see conformance/install-ns2.sh), exits non-zero, or runs longer than `timeout` seconds.
    """
    from . import validate

    ns = ns or shutil.which("ns")
    if not ns:
        raise NS2Error("ns-2 (`ns`) is not on PATH: run conformance/install-ns2.sh")
    normalized = validate(scenario)
    os.makedirs(workdir, exist_ok=True)
    workdir = os.path.abspath(workdir)
    tcl_path = os.path.join(workdir, "scenario.tcl")
    trace_path = os.path.join(workdir, "trace.tr")
    cwnd_path = os.path.join(workdir, "cwnd.tr") if cwnd else None
    nam_path = os.path.join(workdir, "trace.nam") if nam else None
    with open(tcl_path, "w") as f:
        f.write(scenario_to_tcl(normalized, trace_path, cwnd_path, nam_path))
    for stale in (trace_path, cwnd_path, nam_path):  # never report an old run's output
        if stale and os.path.exists(stale):
            os.remove(stale)
    try:
        proc = subprocess.run([ns, tcl_path], cwd=workdir, capture_output=True, text=True,
                              timeout=timeout, env=ns_environment())
    except subprocess.TimeoutExpired as e:
        raise NS2Error(f"ns timed out after {timeout} s on {tcl_path}") from e
    # ns-2 often exits 0 even after a Tcl error, printing it on stderr/stdout,
    # so a missing trace is treated as failure too.
    if proc.returncode != 0 or not os.path.exists(trace_path):
        raise NS2Error(f"ns failed (exit {proc.returncode}) on {tcl_path}:\n"
                       f"{proc.stderr.strip() or proc.stdout.strip()}")
    return {"tcl": tcl_path, "trace": trace_path, "cwnd": cwnd_path, "nam": nam_path,
            "stdout": proc.stdout, "stderr": proc.stderr}
