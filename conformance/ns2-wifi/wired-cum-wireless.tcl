# A wired node, a base station (a mobile node with -wiredRouting ON) and one station in its
# range, hierarchical addresses, TCP from the wired node to the station for 4 s. Run with the
# routing agent in RP: `RP=DumbAgent ns wired-cum-wireless.tcl` delivers the SYN but never the
# station's ACK (it ARPs for the wired node's address); `RP=DSDV ns ...` carries the transfer.
# See PLAN.md, "The seeds' topology in ns-2.35".
set ns [new Simulator]
$ns node-config -addressType hierarchical
AddrParams set domain_num_ 2
lappend cluster_num 1 1
AddrParams set cluster_num_ $cluster_num
lappend eilastlevel 1 2
AddrParams set nodes_num_ $eilastlevel
set tr [open out.tr w]
$ns trace-all $tr
set topo [new Topography]
$topo load_flatgrid 500 500
create-god 2
set W [$ns node 0.0.0]
set chan [new Channel/WirelessChannel]
$ns node-config -adhocRouting $env(RP) -llType LL -macType Mac/802_11 -ifqType Queue/DropTail/PriQueue -ifqLen 50 \
 -antType Antenna/OmniAntenna -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -topoInstance $topo \
 -channel $chan -wiredRouting ON -agentTrace ON -routerTrace ON -macTrace ON
set BS [$ns node 1.0.0]
$BS random-motion 0
$BS set X_ 100; $BS set Y_ 100; $BS set Z_ 0
$ns node-config -wiredRouting OFF
set MS [$ns node 1.0.1]
$MS random-motion 0
$MS base-station [AddrParams addr2id [$BS node-addr]]
$MS set X_ 150; $MS set Y_ 100; $MS set Z_ 0
$ns duplex-link $W $BS 10Mb 10ms DropTail
set tcp [new Agent/TCP]
set sink [new Agent/TCPSink]
$ns attach-agent $W $tcp
$ns attach-agent $MS $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 1.0 "$ftp start"
$ns at 5.0 "puts done; exit 0"
$ns run
