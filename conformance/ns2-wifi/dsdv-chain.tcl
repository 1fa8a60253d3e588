# DSDV on three stations in a line, 200 m apart (0 and 2 out of each other's 250 m range), flat
# addresses, routerTrace ON; TCP from 0 to 2 from 1 s (its SYN waits in DSDV's per-destination
# queue until a route to 2 is learned); at 60 s station 2 walks out of 1's range (MAC retry
# failures: `D RTR CBK`; 45 s without an update from it: the route times out). See DSDV.md.
# Run: `ns dsdv-chain.tcl [VERBOSE [TRAFFIC [STOP]]]`: VERBOSE 1 adds DSDV's own `V...` lines to
# the trace; TRAFFIC 0 leaves the TCP transfer out (route updates only); STOP defaults to 120 s.
# `ns dsdv-chain.tcl 0 0 30` is the smallest DSDV trace worth comparing first (see DSDV.md, 6).
set verbose [expr {[llength $argv] > 0 ? [lindex $argv 0] : 0}]
set traffic [expr {[llength $argv] > 1 ? [lindex $argv 1] : 1}]
set stop [expr {[llength $argv] > 2 ? [lindex $argv 2] : 120.0}]
Agent/DSDV set verbose_ $verbose
Agent/DSDV set trace_wst_ $verbose
set ns [new Simulator]
set tr [open dsdv-chain.tr w]
$ns trace-all $tr
set topo [new Topography]
$topo load_flatgrid 1000 500
create-god 3
$ns node-config -adhocRouting DSDV -llType LL -macType Mac/802_11 -ifqType Queue/DropTail/PriQueue \
 -ifqLen 50 -antType Antenna/OmniAntenna -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy \
 -topoInstance $topo -channel [new Channel/WirelessChannel] \
 -agentTrace ON -routerTrace ON -macTrace ON -movementTrace OFF
for {set i 0} {$i < 3} {incr i} {
    set n($i) [$ns node]
    $n($i) random-motion 0
    $n($i) set X_ [expr {100 + 200 * $i}]; $n($i) set Y_ 100; $n($i) set Z_ 0
}
if {$traffic} {
    set tcp [new Agent/TCP]
    set sink [new Agent/TCPSink]
    $ns attach-agent $n(0) $tcp
    $ns attach-agent $n(2) $sink
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    $ns at 1.0 "$ftp start"
}
$ns at 60.0 "$n(2) setdest 900 100 20"
$ns at $stop "puts done; exit 0"
$ns run
