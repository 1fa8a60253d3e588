// The ns-3 side of tcplab's benchmarks S1-S3: a dumbbell of N bulk TCP flows, built as the
// tcplab scenarios and ns-2 scripts of bench/ are (see bench/README.md). Every sender has its
// own access link to router r1, every receiver its own link from router r2, and r1-r2 is the
// bottleneck. Each link direction holds a DropTail queue of `queue` packets in the device and
// no queue discipline, as ns-2's links do.
//
// TCP is set as ns-2's agents behave where ns-3.37 allows it: one-packet initial window, an
// ACK for every segment, no timestamps (so a full segment is `segment` + 40 bytes on the wire),
// a receive window of `window` segments, and the 200 ms minimum RTO of ns-2's Agent/TCP.
// SACK stays on: without it, Debian's ns-3.37 NewReno recovers from a loss by timeouts only
// (a 100 Mb/s path then carries 4 Mb/s). The send buffer is `sndBuf` bytes: with much more
// than 256 KB, ns-3.37 crashes in TcpRateLinux::SkbSent once losses begin.
//
// Prints one line per flow: "flow <i> rx_bytes <n>", the bytes its receiver got in order.
//
// Build: g++ -O2 -std=c++17 -I/usr/include dumbbell.cc -o dumbbell \
//   -lns3-core -lns3-network -lns3-internet -lns3-point-to-point -lns3-applications -lns3-traffic-control

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <iostream>
#include <sstream>
#include <vector>

using namespace ns3;

static std::vector<double> ParseList(const std::string& text) {
    std::vector<double> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (!item.empty()) out.push_back(std::stod(item));
    }
    return out;
}

int main(int argc, char* argv[]) {
    uint32_t flows = 2;
    std::string tcp = "NewReno";
    std::string srcRate = "1Gbps", srcDelay = "1ms", dstRate = "1Gbps", dstDelay = "1ms";
    std::string coreRate = "1Gbps", coreDelay = "10ms";
    uint32_t queue = 1000, segment = 1460, window = 10000, sndBuf = 1 << 18;
    double duration = 30.0, stagger = 0.0;
    std::string starts, stops;

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of flows", flows);
    cmd.AddValue("tcp", "TCP variant: NewReno, Vegas or LinuxReno", tcp);
    cmd.AddValue("srcRate", "sender access link rate", srcRate);
    cmd.AddValue("srcDelay", "sender access link delay", srcDelay);
    cmd.AddValue("dstRate", "receiver access link rate", dstRate);
    cmd.AddValue("dstDelay", "receiver access link delay", dstDelay);
    cmd.AddValue("coreRate", "bottleneck rate", coreRate);
    cmd.AddValue("coreDelay", "bottleneck delay", coreDelay);
    cmd.AddValue("queue", "DropTail limit of every link direction, packets", queue);
    cmd.AddValue("segment", "TCP payload per segment, bytes", segment);
    cmd.AddValue("window", "receive window, segments", window);
    cmd.AddValue("sndBuf", "send buffer, bytes", sndBuf);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("stagger", "flow i starts at i * stagger seconds (unless starts is given)", stagger);
    cmd.AddValue("starts", "comma-separated start times, seconds", starts);
    cmd.AddValue("stops", "comma-separated stop times, seconds (0: the end)", stops);
    cmd.Parse(argc, argv);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::Tcp" + tcp));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segment));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sndBuf));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(window * segment));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));

    NodeContainer senders, receivers, routers;
    senders.Create(flows);
    receivers.Create(flows);
    routers.Create(2);
    InternetStackHelper stack;
    stack.InstallAll();

    std::string limit = std::to_string(queue) + "p";
    auto link = [&](Ptr<Node> a, Ptr<Node> b, const std::string& rate, const std::string& delay) {
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue(rate));
        p2p.SetChannelAttribute("Delay", StringValue(delay));
        p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue(limit));
        return p2p.Install(a, b);
    };

    Ipv4AddressHelper address;
    address.SetBase("10.0.0.0", "255.255.255.252");
    auto assign = [&](NetDeviceContainer devices) {
        Ipv4InterfaceContainer ifs = address.Assign(devices);  // installs a default queue disc
        TrafficControlHelper().Uninstall(devices);  // keep the device queue only, as in ns-2
        address.NewNetwork();
        return ifs;
    };
    assign(link(routers.Get(0), routers.Get(1), coreRate, coreDelay));
    std::vector<Ipv4Address> sinkAddress;
    for (uint32_t i = 0; i < flows; ++i) {
        assign(link(senders.Get(i), routers.Get(0), srcRate, srcDelay));
        sinkAddress.push_back(assign(link(routers.Get(1), receivers.Get(i), dstRate, dstDelay)).GetAddress(1));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    std::vector<double> start = ParseList(starts), stop = ParseList(stops);
    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < flows; ++i) {
        uint16_t port = 5000 + i;
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer rx = sink.Install(receivers.Get(i));
        rx.Start(Seconds(0.0));
        sinks.push_back(DynamicCast<PacketSink>(rx.Get(0)));

        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(sinkAddress[i], port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(segment));
        ApplicationContainer tx = bulk.Install(senders.Get(i));
        tx.Start(Seconds(i < start.size() ? start[i] : i * stagger));
        if (i < stop.size() && stop[i] > 0) tx.Stop(Seconds(stop[i]));
    }

    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    for (uint32_t i = 0; i < flows; ++i) {
        std::cout << "flow " << i << " rx_bytes " << sinks[i]->GetTotalRx() << "\n";
    }
    Simulator::Destroy();
    return 0;
}
