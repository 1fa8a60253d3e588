"""Writes the scenarios of Yew, Ong and Ahmad's wired dumbbell study
(shared/seeds/002_561d73994d48847d.txt): Tables V (homogeneous) and VI (heterogeneous).

Run from anywhere: python scenarios/yew2011-wired/generate.py
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent
ACCESS = {"e": ("Ethernet", "10Mb", "10ms"), "f": ("Fast Ethernet", "100Mb", "1ms")}
VARIANTS = ["tahoe", "reno", "newreno", "vegas", "sack1"]

TEMPLATE = """\
# Yew, Ong, Ahmad (002_561d73994d48847d.txt), wired dumbbell, Table II parameters.
# Environment {env}: senders on {sname} ({sbw}, {sdl}), receivers on {rname} ({rbw}, {rdl}).
# {case}{lossy}
# Our choices where the paper is silent: 100 s runs, packetSize_ 1500 B of payload (1540 B on the
# wire for all but Vegas, whose ns-2 agent adds no header), flow B starting 0.5 s after flow A,
# SACK as ns-2's Agent/TCP/Sack1 with TCPSink/Sack1, ns-2 defaults for everything else.
name = "{name}"
duration = "100s"
seed = 1
nodes = ["s1", "s2", "r1", "r2", "k1", "k2"]

[tcp]
window = 17

[[links]]
from = "s1"
to = "r1"
bandwidth = "{sbw}"
delay = "{sdl}"

[[links]]
from = "s2"
to = "r1"
bandwidth = "{sbw}"
delay = "{sdl}"

[[links]]
from = "r1"
to = "r2"
bandwidth = "2Mb"
delay = "50ms"
queue_limit = {queue}

[[links]]
from = "r2"
to = "k1"
bandwidth = "{rbw}"
delay = "{rdl}"

[[links]]
from = "r2"
to = "k2"
bandwidth = "{rbw}"
delay = "{rdl}"

[[flows]]
name = "A"
from = "s1"
to = "k1"
protocol = "{a}"
packet_size = "1500B"

[[flows]]
name = "B"
from = "s2"
to = "k2"
protocol = "{b}"
packet_size = "1500B"
start = "0.5s"
"""


def scenario(name: str, env: str, a: str, b: str, queue: int = 50) -> str:
    (sname, sbw, sdl), (rname, rbw, rdl) = ACCESS[env[0]], ACCESS[env[1]]
    case = f"Homogeneous case: both senders run {a}." if a == b else f"Heterogeneous case: {a} against {b}."
    lossy = f"\n# Lossy variant: the bottleneck queue holds {queue} packets instead of 50." if queue != 50 else ""
    return TEMPLATE.format(env=env.upper(), sname=sname, sbw=sbw, sdl=sdl, rname=rname, rbw=rbw, rdl=rdl,
                           case=case, lossy=lossy, name=name, a=a, b=b, queue=queue)


def main() -> None:
    for old in HERE.glob("*.toml"):
        old.unlink()
    files = {}
    for env in ("ee", "ef", "ff", "fe"):
        for v in VARIANTS:  # Table V
            files[f"{env}-{v}"] = scenario(f"{env}-{v}", env, v, v)
        for v in VARIANTS[:3] + VARIANTS[4:]:  # Table VI: Vegas against each
            files[f"{env}-vegas-{v}"] = scenario(f"{env}-vegas-{v}", env, "vegas", v)
    for v in VARIANTS:
        files[f"lossy-{v}"] = scenario(f"lossy-{v}", "ee", v, v, queue=8)
    for name, text in files.items():
        (HERE / f"{name}.toml").write_text(text)


if __name__ == "__main__":
    main()
