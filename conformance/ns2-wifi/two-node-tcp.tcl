# Two static mobile nodes 100 m apart, ns-2.35's wireless defaults (802.11 at 1 Mb/s, RTS/CTS
# on every frame, two-ray ground), DumbAgent routing (no routing traffic), one Reno FTP
# transfer from node 0 to node 1 for 50 s. Compared with two-node-tcp.toml by
# python/tests/test_ns2_wifi.py: goodput and MAC frames per data packet.
# Usage: ns two-node-tcp.tcl TRACE_FILE [new]   ("new": ns-2's new wireless trace format)
set val(chan)   Channel/WirelessChannel
set val(prop)   Propagation/TwoRayGround
set val(netif)  Phy/WirelessPhy
set val(mac)    Mac/802_11
set val(ifq)    Queue/DropTail/PriQueue
set val(ll)     LL
set val(ant)    Antenna/OmniAntenna
set val(ifqlen) 50
set val(rp)     DumbAgent

set ns [new Simulator]
if {[llength $argv] > 1 && [lindex $argv 1] == "new"} {
    $ns use-newtrace
}
set tracefd [open [lindex $argv 0] w]
$ns trace-all $tracefd

set topo [new Topography]
$topo load_flatgrid 500 500
create-god 2

$ns node-config -adhocRouting $val(rp) -llType $val(ll) -macType $val(mac) -ifqType $val(ifq) \
    -ifqLen $val(ifqlen) -antType $val(ant) -propType $val(prop) -phyType $val(netif) \
    -channelType $val(chan) -topoInstance $topo -agentTrace ON -routerTrace OFF -macTrace ON \
    -movementTrace OFF

set n0 [$ns node]
set n1 [$ns node]
$n0 random-motion 0
$n1 random-motion 0
$n0 set X_ 100.0
$n0 set Y_ 100.0
$n0 set Z_ 0.0
$n1 set X_ 200.0
$n1 set Y_ 100.0
$n1 set Z_ 0.0

set tcp [new Agent/TCP/Reno]
set sink [new Agent/TCPSink]
$ns attach-agent $n0 $tcp
$ns attach-agent $n1 $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 1.0 "$ftp start"

$ns at 51.0 "finish"
proc finish {} {
    global ns tracefd
    $ns flush-trace
    close $tracefd
    exit 0
}
$ns run
