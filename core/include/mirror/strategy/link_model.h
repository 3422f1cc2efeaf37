#pragma once
// A link between devices and the cost of an all-reduce over it, in the α–β model: the presets
// with published figures, the `--link` text, and the ring, tree and hierarchical formulas. Plain
// values, no torch: the what-if (runs/predict.h) predicts with it, and the simulated link of
// `mirrortrain train --link` (MirroredOptions::link) delays each all-reduce by it. Every function
// is pure and thread-safe.

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace mirror {

// A link between devices, in the α–β (latency–bandwidth) model: sending m bytes over it takes
// latency_s + m / bandwidth_bytes_per_s. Bandwidth is per direction: a ring sends and receives at
// once, each at this rate.
struct LinkSpec {
  std::string name;                 // a preset's name ("nvlink4", "ib-ndr400"), or "custom"
  double latency_s = 0;             // α: the fixed cost of one message, seconds (>= 0)
  double bandwidth_bytes_per_s = 0; // 1/β: bytes per second, one direction (> 0; infinite: unlimited)
  // Its figures are modelled, not this machine's: the run ran over something else and the
  // all-reduce was delayed to match (`train --link`), or a prediction assumed it.
  bool simulated = false;
  // The link of this machine as a measured run showed it ("loopback"): its figures come from
  // fit_model (FittedModel::measured_link), not from the preset table; until then both are 0.
  bool from_run = false;
  std::string source;               // where the figures come from, in words (a datasheet, a fit)

  // A bare "latency=10ms": only the latency costs anything (run.json leaves the bandwidth out).
  bool unlimited_bandwidth() const { return bandwidth_bytes_per_s == kUnlimited; }
  static constexpr double kUnlimited = std::numeric_limits<double>::infinity();

  // "InfiniBand NDR 400 Gb/s: 5 us, 50 GB/s" style one line; "simulated" is appended when set.
  std::string describe() const;
  // The text parse_link reads back: the preset's name, else "latency=5us,bandwidth=50GB".
  std::string spec_text() const;
};

// The presets, in the order `mirrortrain predict --help` lists them: nvlink4, pcie5, ib-ndr400,
// 100gbe, 25gbe, 10gbe, loopback (from_run). Each has its source in the code and in `source`.
const std::vector<LinkSpec>& link_presets();
// The preset of that name (case-insensitive, "_" read as "-"); nullopt when none.
std::optional<LinkSpec> find_link_preset(const std::string& name);

// The figures a link given by a person may have: a latency from 0 to 10 s, a bandwidth from
// 1 kbit/s to 1 Pbit/s (or unlimited). Beyond them a simulated wait would overflow the clock or
// last for ages, and a prediction is meaningless: such a link is refused, naming the range.
constexpr double kMaxLinkLatencySeconds = 10;
constexpr double kMinLinkBandwidthBytes = 1e3 / 8;
constexpr double kMaxLinkBandwidthBytes = 1e15 / 8;
// Throws ConfigError saying which figure of `link` is outside that range and what the range is.
void check_link_range(const LinkSpec& link);

// Reads `--link` text: a preset's name, or "latency=5us,bandwidth=1Gbit" (keys in any order;
// latency optional, 0 when left out; bandwidth optional, unlimited when left out, but one of the
// two must be given). Latency units: ns, us, ms, s. Bandwidth: a number, an
// optional decimal prefix k/K, M, G, T, then bit or byte (bits, bytes, B also read; "/s" or "ps"
// after it optional). "1Gbit" is 1e9 bits per second = 125e6 bytes per second. Throws ConfigError
// naming the bad part and what would be accepted ("bandwidth '1Gb': say bit or byte ...").
// The result has simulated == false; the caller sets it where the link is simulated.
LinkSpec parse_link(const std::string& text);

// How the gradients are summed over n devices.
enum class AllReduceAlgorithm { kRing, kTree, kHierarchical };
const char* algorithm_name(AllReduceAlgorithm a);     // "ring", "tree", "hierarchical"
AllReduceAlgorithm parse_algorithm(const std::string& name);  // throws ConfigError

// The link and the algorithm a prediction assumes.
struct CommModel {
  AllReduceAlgorithm algorithm = AllReduceAlgorithm::kRing;
  LinkSpec link;               // between devices (ring, tree); between nodes (hierarchical)
  LinkSpec intra_node_link;    // hierarchical only: inside a node (default the nvlink4 preset)
  int devices_per_node = 8;    // hierarchical only

  CommModel();
};

// The all-reduce cost formulas, seconds, for n devices summing `bytes` each (n >= 1; 0 at n = 1).
//
// Ring (reduce-scatter then all-gather, n-1 steps each, every step sending bytes/n):
//   T = 2(n-1)/n · bytes/bw + 2(n-1) · α
// Tree (a binary tree: a reduce up it then a broadcast down it, whole buffer per level, no
// pipelining; the plain form, not NCCL's pipelined double binary tree):
//   T = 2 · ⌈log2 n⌉ · (α + bytes/bw)
// Hierarchical (p devices per node, m = ⌈n/p⌉ nodes, each device with its own network port as on
// a DGX H100): a ring reduce-scatter inside each node over the intra-node link, a ring all-reduce
// of each device's 1/p share across the m nodes over the network, a ring all-gather inside the node:
//   T = 2 · [(p-1)/p · bytes/bw_in + (p-1) · α_in] + 2(m-1)/m · (bytes/p)/bw_net + 2(m-1) · α_net
// with p = min(n, devices_per_node); for n <= devices_per_node it is the ring over the intra link.
double ring_allreduce_seconds(const LinkSpec& link, int n, double bytes);
double tree_allreduce_seconds(const LinkSpec& link, int n, double bytes);
double hierarchical_allreduce_seconds(const LinkSpec& intra, const LinkSpec& inter,
                                      int devices_per_node, int n, double bytes);
double allreduce_seconds(const CommModel& model, int n, double bytes);

}  // namespace mirror
