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
// For `tcplab conformance linux` the same program runs Linux's controllers as ns-3.37 has them
// (tcp = LinuxReno, Cubic, Bbr, Dctcp) with Linux's defaults given as arguments (initialCwnd 10,
// delAckCount 2, timestamps, pacing for BBR), and the bottleneck's own queue: `coreQueue`
// packets of DropTail in the device, or a RED queue discipline (queueDisc=red) in packet mode
// over a one-packet device queue, so that packets wait in RED. With `series=FILE` it writes
// every `sampleInterval` one line per flow, "time flow cwnd_segments pacing_rate_bps
// bottleneck_queue_packets", and prints per flow "stats <i> rx_bytes_at_from <n> retransmits
// <n>": the bytes received by `measureFrom` and the data segments sent again (a segment whose
// end is not above the highest end sent before).
//
// Build: g++ -O2 -std=c++17 -I/usr/include dumbbell.cc -o dumbbell \
//   -lns3-core -lns3-network -lns3-internet -lns3-point-to-point -lns3-applications -lns3-traffic-control

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <fstream>
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

// What the series and the stats report of one flow, kept up to date by its socket's traces.
struct FlowState {
    uint32_t cwndBytes = 0;
    uint64_t pacingBps = 0;
    SequenceNumber32 highestEnd{0};
    bool sentAny = false;
    uint64_t retransmits = 0;
    uint64_t rxAtFrom = 0;
};

static std::vector<FlowState> g_flows;

static void OnCwnd(uint32_t i, uint32_t, uint32_t now) { g_flows[i].cwndBytes = now; }

static void OnPacingRate(uint32_t i, DataRate, DataRate now) { g_flows[i].pacingBps = now.GetBitRate(); }

static void OnTx(uint32_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>) {
    if (p->GetSize() == 0) return;  // a pure ACK, SYN or FIN
    FlowState& f = g_flows[i];
    SequenceNumber32 end = h.GetSequenceNumber() + p->GetSize();
    if (f.sentAny && end <= f.highestEnd) {
        ++f.retransmits;
    } else {
        f.highestEnd = end;
        f.sentAny = true;
    }
}

int main(int argc, char* argv[]) {
    uint32_t flows = 2;
    std::string tcp = "NewReno";
    std::string srcRate = "1Gbps", srcDelay = "1ms", dstRate = "1Gbps", dstDelay = "1ms";
    std::string coreRate = "1Gbps", coreDelay = "10ms";
    uint32_t queue = 1000, segment = 1460, window = 10000, sndBuf = 1 << 18;
    double duration = 30.0, stagger = 0.0;
    std::string starts, stops;
    uint32_t initialCwnd = 1, delAckCount = 1, coreQueue = 0;
    bool timestamps = false, pacing = false, redEcn = false;
    std::string queueDisc = "none", series;
    double redMinTh = 5, redMaxTh = 15, redQw = 0.002, redLInterm = 10;
    double sampleInterval = 0.01, measureFrom = 0.0;

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of flows", flows);
    cmd.AddValue("tcp", "TCP variant: NewReno, Vegas, LinuxReno, Cubic, Bbr or Dctcp", tcp);
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
    cmd.AddValue("initialCwnd", "initial window, segments", initialCwnd);
    cmd.AddValue("delAckCount", "segments per delayed ACK", delAckCount);
    cmd.AddValue("timestamps", "TCP timestamps (12 option bytes per segment)", timestamps);
    cmd.AddValue("pacing", "pace the senders (ns-3's TCP pacing)", pacing);
    cmd.AddValue("coreQueue", "the bottleneck's DropTail limit, packets (0: queue)", coreQueue);
    cmd.AddValue("queueDisc", "the bottleneck's queue: none (DropTail in the device) or red", queueDisc);
    cmd.AddValue("redMinTh", "RED minimum threshold, packets", redMinTh);
    cmd.AddValue("redMaxTh", "RED maximum threshold, packets", redMaxTh);
    cmd.AddValue("redQw", "RED queue weight", redQw);
    cmd.AddValue("redLInterm", "RED: 1 / max_p", redLInterm);
    cmd.AddValue("redEcn", "RED marks ECN-capable packets instead of dropping them", redEcn);
    cmd.AddValue("series", "write the cwnd, pacing rate and queue series to this file", series);
    cmd.AddValue("sampleInterval", "the series' interval, seconds", sampleInterval);
    cmd.AddValue("measureFrom", "report the bytes each flow has received by this time, seconds", measureFrom);
    cmd.Parse(argc, argv);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::Tcp" + tcp));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segment));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initialCwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAckCount));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sndBuf));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(window * segment));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(timestamps));
    Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(pacing));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));

    NodeContainer senders, receivers, routers;
    senders.Create(flows);
    receivers.Create(flows);
    routers.Create(2);
    InternetStackHelper stack;
    stack.InstallAll();

    bool red = queueDisc == "red";
    if (!red && queueDisc != "none") {
        std::cerr << "queueDisc must be none or red\n";
        return 2;
    }
    auto link = [&](Ptr<Node> a, Ptr<Node> b, const std::string& rate, const std::string& delay, uint32_t packets) {
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue(rate));
        p2p.SetChannelAttribute("Delay", StringValue(delay));
        p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue(std::to_string(packets) + "p"));
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
    uint32_t bottleneckLimit = red ? 1 : (coreQueue ? coreQueue : queue);
    NetDeviceContainer core = link(routers.Get(0), routers.Get(1), coreRate, coreDelay, bottleneckLimit);
    assign(core);
    Ptr<QueueDisc> redQueue;
    if (red) {
        TrafficControlHelper tc;
        tc.SetRootQueueDisc("ns3::RedQueueDisc", "MaxSize", StringValue(std::to_string(coreQueue ? coreQueue : queue) + "p"),
                            "MinTh", DoubleValue(redMinTh), "MaxTh", DoubleValue(redMaxTh), "QW", DoubleValue(redQw),
                            "LInterm", DoubleValue(redLInterm), "MeanPktSize", UintegerValue(segment + 52),
                            "UseEcn", BooleanValue(redEcn), "UseHardDrop", BooleanValue(!redEcn));
        redQueue = tc.Install(core.Get(0)).Get(0);
    }
    Ptr<Queue<Packet>> coreDeviceQueue = DynamicCast<PointToPointNetDevice>(core.Get(0))->GetQueue();
    std::vector<Ipv4Address> sinkAddress;
    for (uint32_t i = 0; i < flows; ++i) {
        assign(link(senders.Get(i), routers.Get(0), srcRate, srcDelay, queue));
        sinkAddress.push_back(assign(link(routers.Get(1), receivers.Get(i), dstRate, dstDelay, queue)).GetAddress(1));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    std::vector<double> start = ParseList(starts), stop = ParseList(stops);
    std::vector<Ptr<PacketSink>> sinks;
    std::vector<Ptr<BulkSendApplication>> bulks;
    g_flows.assign(flows, FlowState());
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
        double at = i < start.size() ? start[i] : i * stagger;
        tx.Start(Seconds(at));
        if (i < stop.size() && stop[i] > 0) tx.Stop(Seconds(stop[i]));
        bulks.push_back(DynamicCast<BulkSendApplication>(tx.Get(0)));
        if (!series.empty()) {
            // the application makes its socket when it starts: hook its traces just after
            Simulator::Schedule(Seconds(at) + NanoSeconds(1), [i, &bulks]() {
                Ptr<Socket> socket = bulks[i]->GetSocket();
                bool ok = socket->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
                ok = socket->TraceConnectWithoutContext("PacingRate", MakeBoundCallback(&OnPacingRate, i)) && ok;
                ok = socket->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, i)) && ok;
                if (!ok) std::cerr << "flow " << i << ": cannot trace its socket\n";
            });
        }
    }

    std::ofstream out;
    std::function<void()> sample;  // reschedules itself: it lives as long as the run
    if (!series.empty()) {
        out.open(series);
        out << "time flow cwnd pacing_rate_bps queue\n";
        sample = [&]() {
            uint32_t waiting = red ? redQueue->GetNPackets() : coreDeviceQueue->GetNPackets();
            for (uint32_t i = 0; i < flows; ++i) {
                out << Simulator::Now().GetSeconds() << " " << i << " " << double(g_flows[i].cwndBytes) / segment << " "
                    << g_flows[i].pacingBps << " " << waiting << "\n";
            }
            Simulator::Schedule(Seconds(sampleInterval), sample);
        };
        Simulator::Schedule(Seconds(sampleInterval), sample);
        Simulator::Schedule(Seconds(measureFrom), [&]() {
            for (uint32_t i = 0; i < flows; ++i) g_flows[i].rxAtFrom = sinks[i]->GetTotalRx();
        });
    }

    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    for (uint32_t i = 0; i < flows; ++i) {
        std::cout << "flow " << i << " rx_bytes " << sinks[i]->GetTotalRx() << "\n";
        if (!series.empty()) {
            std::cout << "stats " << i << " rx_bytes_at_from " << g_flows[i].rxAtFrom << " retransmits "
                      << g_flows[i].retransmits << "\n";
        }
    }
    Simulator::Destroy();
    return 0;
}
