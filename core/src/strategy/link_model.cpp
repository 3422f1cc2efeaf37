#include "mirror/strategy/link_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "mirror/util/error.h"

namespace mirror {
namespace link_model_impl {
namespace {

// Latencies: NCCL's own cost model (src/graph/tuning.cc, table hwLat, Ring with the Simple
// protocol, the one large gradient buffers use): 3.4 us per ring step over NVLink, 5.7 us over
// PCIe, 9.6 us over the network. NCCL does not tell InfiniBand from Ethernet there; kernel TCP
// over Ethernet is usually slower, so fit α on your own network when it matters.
constexpr double kNvlinkStepLatency = 3.4e-6;
constexpr double kPcieStepLatency = 5.7e-6;
constexpr double kNetStepLatency = 9.6e-6;

LinkSpec preset(const char* name, double latency, double bandwidth, const char* source) {
  LinkSpec link;
  link.name = name;
  link.latency_s = latency;
  link.bandwidth_bytes_per_s = bandwidth;
  link.source = source;
  return link;
}

std::vector<LinkSpec> make_presets() {
  std::vector<LinkSpec> presets;
  // NVLink 4 (H100 SXM): 900 GB/s of total bandwidth per GPU, counting both directions
  // (NVIDIA H100 Tensor Core GPU datasheet; "NVIDIA H100 Tensor Core GPU Architecture"
  // whitepaper, 18 links x 50 GB/s). A ring sends and receives at once, so per direction: 450 GB/s.
  presets.push_back(preset("nvlink4", kNvlinkStepLatency, 450e9,
                           "NVIDIA H100 datasheet: 900 GB/s bidirectional per GPU, 450 GB/s each way"));
  // PCIe 5.0 x16: 32 GT/s per lane, 128b/130b encoding: 16 lanes x 32e9 x 128/130 / 8 = 63.0 GB/s
  // per direction (PCI-SIG, PCI Express Base Specification Revision 5.0, 2019).
  presets.push_back(preset("pcie5", kPcieStepLatency, 16 * 32e9 * 128.0 / 130.0 / 8.0,
                           "PCI-SIG PCIe 5.0 base specification: 32 GT/s x16, 63 GB/s each way"));
  // InfiniBand NDR: 400 Gb/s per port (InfiniBand Trade Association roadmap; NVIDIA ConnectX-7
  // datasheet), 50 GB/s per direction.
  presets.push_back(preset("ib-ndr400", kNetStepLatency, 400e9 / 8,
                           "IBTA roadmap, NVIDIA ConnectX-7 datasheet: NDR 400 Gb/s per port"));
  // Ethernet line rates (IEEE 802.3ba for 100GbE, 802.3by for 25GbE, 802.3ae for 10GbE).
  presets.push_back(preset("100gbe", kNetStepLatency, 100e9 / 8, "IEEE 802.3ba: 100 Gb/s line rate"));
  presets.push_back(preset("25gbe", kNetStepLatency, 25e9 / 8, "IEEE 802.3by: 25 Gb/s line rate"));
  presets.push_back(preset("10gbe", kNetStepLatency, 10e9 / 8, "IEEE 802.3ae: 10 Gb/s line rate"));
  // This machine: whatever a measured run shows (FittedModel::measured_link). No figures here.
  LinkSpec loopback = preset("loopback", 0, 0, "this machine, fitted from a measured run");
  loopback.from_run = true;
  presets.push_back(loopback);
  return presets;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// Splits "12.5Gbit" into 12.5 and "Gbit"; throws when there is no number in front.
std::pair<double, std::string> split_number(const std::string& text, const std::string& what) {
  const char* begin = text.c_str();
  char* end = nullptr;
  double value = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(value))
    throw ConfigError(fmt::format("{} '{}': expected a number and a unit", what, text));
  return {value, trim(std::string(end))};
}

double parse_latency(const std::string& text) {
  auto [value, unit] = split_number(text, "latency");
  double scale = 0;
  if (unit == "ns") scale = 1e-9;
  else if (unit == "us") scale = 1e-6;
  else if (unit == "ms") scale = 1e-3;
  else if (unit == "s") scale = 1;
  else
    throw ConfigError(fmt::format(
        "latency '{}': unit '{}' is not one of ns, us, ms, s (e.g. latency=5us)", text, unit));
  if (value < 0) throw ConfigError(fmt::format("latency '{}' is negative", text));
  const double seconds = value * scale;
  if (seconds > kMaxLinkLatencySeconds)
    throw ConfigError(fmt::format("latency '{}' is beyond {} s: a link's latency may be 0 to {} s", text,
                                  kMaxLinkLatencySeconds, kMaxLinkLatencySeconds));
  return seconds;
}

double parse_bandwidth(const std::string& text) {
  auto [value, unit] = split_number(text, "bandwidth");
  std::string rest = unit;
  for (const char* per : {"/s", "ps"}) {
    const std::string suffix = per;
    if (rest.size() > suffix.size() && rest.compare(rest.size() - suffix.size(), suffix.size(), suffix) == 0)
      rest.erase(rest.size() - suffix.size());
  }
  double prefix = 1;
  if (!rest.empty()) {
    switch (rest[0]) {
      case 'k': case 'K': prefix = 1e3; rest.erase(0, 1); break;
      case 'M': prefix = 1e6; rest.erase(0, 1); break;
      case 'G': prefix = 1e9; rest.erase(0, 1); break;
      case 'T': prefix = 1e12; rest.erase(0, 1); break;
      default: break;
    }
  }
  double per_byte = 0;
  const std::string word = lower(rest);
  if (word == "bit" || word == "bits") per_byte = 1.0 / 8;
  else if (rest == "B" || word == "byte" || word == "bytes") per_byte = 1;
  else if (rest == "b")
    throw ConfigError(fmt::format(
        "bandwidth '{}': 'b' could be bits or bytes; say bit or byte (1Gbit, 125MB)", text));
  else
    throw ConfigError(fmt::format(
        "bandwidth '{}': expected a number, an optional k, M, G or T, then bit or byte "
        "(e.g. bandwidth=1Gbit, bandwidth=10GB)", text));
  if (!(value > 0)) throw ConfigError(fmt::format("bandwidth '{}' must be more than 0", text));
  const double bytes = value * prefix * per_byte;
  if (!(bytes >= kMinLinkBandwidthBytes && bytes <= kMaxLinkBandwidthBytes))
    throw ConfigError(fmt::format("bandwidth '{}' is outside 1kbit to 1000Tbit per second, the range a link may have; "
                                  "leave bandwidth out for an unlimited one", text));
  return bytes;
}

std::string format_seconds(double s) {
  if (s == 0) return "0us";
  if (s < 1e-3) return fmt::format("{:.6g}us", s * 1e6);
  if (s < 1) return fmt::format("{:.6g}ms", s * 1e3);
  return fmt::format("{:.6g}s", s);
}

// `digits`: significant digits; spec_text keeps more of them than a description.
std::string format_bandwidth(double bytes_per_s, int digits) {
  if (bytes_per_s >= 1e9) return fmt::format("{:.{}g}GB", bytes_per_s / 1e9, digits);
  if (bytes_per_s >= 1e6) return fmt::format("{:.{}g}MB", bytes_per_s / 1e6, digits);
  if (bytes_per_s >= 1e3) return fmt::format("{:.{}g}kB", bytes_per_s / 1e3, digits);
  return fmt::format("{:.{}g}B", bytes_per_s, digits);
}

double ceil_log2(int n) {
  int levels = 0;
  while ((1 << levels) < n) ++levels;
  return levels;
}

}  // namespace
}  // namespace link_model_impl


std::string LinkSpec::describe() const {
  std::string text = from_run && bandwidth_bytes_per_s <= 0 ? fmt::format("{} (fitted from a run)", name)
                     : unlimited_bandwidth()
                         ? fmt::format("{}: {} latency, unlimited bandwidth", name, link_model_impl::format_seconds(latency_s))
                         : fmt::format("{}: {} latency, {}/s", name, link_model_impl::format_seconds(latency_s),
                                       link_model_impl::format_bandwidth(bandwidth_bytes_per_s, 4));
  if (simulated) text += " (simulated)";
  return text;
}

std::string LinkSpec::spec_text() const {
  if (auto p = find_link_preset(name)) {
    if (p->from_run || (p->latency_s == latency_s && p->bandwidth_bytes_per_s == bandwidth_bytes_per_s))
      return p->name;
  }
  if (unlimited_bandwidth()) return fmt::format("latency={}", link_model_impl::format_seconds(latency_s));
  return fmt::format("latency={},bandwidth={}", link_model_impl::format_seconds(latency_s),
                     link_model_impl::format_bandwidth(bandwidth_bytes_per_s, 9));
}

const std::vector<LinkSpec>& link_presets() {
  static const std::vector<LinkSpec> presets = link_model_impl::make_presets();
  return presets;
}

std::optional<LinkSpec> find_link_preset(const std::string& name) {
  std::string key = link_model_impl::lower(link_model_impl::trim(name));
  std::replace(key.begin(), key.end(), '_', '-');
  for (const LinkSpec& p : link_presets())
    if (p.name == key) return p;
  return std::nullopt;
}

LinkSpec parse_link(const std::string& text) {
  const std::string t = link_model_impl::trim(text);
  if (t.empty()) throw ConfigError("--link: empty; name a preset or give latency=...,bandwidth=...");
  if (t.find('=') == std::string::npos) {
    if (auto p = find_link_preset(t)) return *p;
    std::string names;
    for (const LinkSpec& p : link_presets()) names += (names.empty() ? "" : ", ") + p.name;
    throw ConfigError(fmt::format(
        "--link '{}': not a preset ({}) nor latency=...,bandwidth=... (e.g. latency=5us,bandwidth=1Gbit)",
        t, names));
  }
  LinkSpec link;
  link.name = "custom";
  link.source = "given as " + t;
  bool have_latency = false, have_bandwidth = false;
  size_t start = 0;
  while (start <= t.size()) {
    size_t comma = t.find(',', start);
    const size_t length = comma == std::string::npos ? std::string::npos : comma - start;
    std::string part = link_model_impl::trim(t.substr(start, length));
    start = comma == std::string::npos ? t.size() + 1 : comma + 1;
    if (part.empty()) continue;
    size_t eq = part.find('=');
    if (eq == std::string::npos)
      throw ConfigError(fmt::format("--link '{}': '{}' is not key=value (latency=..., bandwidth=...)", t, part));
    const std::string key = link_model_impl::lower(link_model_impl::trim(part.substr(0, eq)));
    const std::string value = link_model_impl::trim(part.substr(eq + 1));
    if (key == "latency") {
      if (have_latency) throw ConfigError(fmt::format("--link '{}': latency given twice", t));
      link.latency_s = link_model_impl::parse_latency(value);
      have_latency = true;
    } else if (key == "bandwidth") {
      if (have_bandwidth) throw ConfigError(fmt::format("--link '{}': bandwidth given twice", t));
      link.bandwidth_bytes_per_s = link_model_impl::parse_bandwidth(value);
      have_bandwidth = true;
    } else {
      throw ConfigError(fmt::format("--link '{}': unknown key '{}' (latency, bandwidth)", t, key));
    }
  }
  if (!have_bandwidth && !have_latency)
    throw ConfigError(fmt::format("--link '{}': give a latency, a bandwidth or both (e.g. latency=5us,bandwidth=1Gbit)", t));
  if (!have_bandwidth) link.bandwidth_bytes_per_s = LinkSpec::kUnlimited;
  return link;
}

void check_link_range(const LinkSpec& link) {
  if (!(link.latency_s >= 0 && link.latency_s <= kMaxLinkLatencySeconds))
    throw ConfigError(fmt::format("link {}: latency {} s is outside 0 to {} s, the range a link may have", link.name,
                                  link.latency_s, kMaxLinkLatencySeconds));
  if (link.unlimited_bandwidth()) return;
  if (!(link.bandwidth_bytes_per_s >= kMinLinkBandwidthBytes && link.bandwidth_bytes_per_s <= kMaxLinkBandwidthBytes))
    throw ConfigError(fmt::format("link {}: bandwidth {} bytes/s is outside 1kbit to 1000Tbit per second "
                                  "({} to {} bytes/s), the range a link may have",
                                  link.name, link.bandwidth_bytes_per_s, kMinLinkBandwidthBytes, kMaxLinkBandwidthBytes));
}

const char* algorithm_name(AllReduceAlgorithm a) {
  switch (a) {
    case AllReduceAlgorithm::kRing: return "ring";
    case AllReduceAlgorithm::kTree: return "tree";
    case AllReduceAlgorithm::kHierarchical: return "hierarchical";
  }
  return "ring";
}

AllReduceAlgorithm parse_algorithm(const std::string& name) {
  const std::string key = link_model_impl::lower(link_model_impl::trim(name));
  if (key == "ring") return AllReduceAlgorithm::kRing;
  if (key == "tree") return AllReduceAlgorithm::kTree;
  if (key == "hierarchical") return AllReduceAlgorithm::kHierarchical;
  throw ConfigError(fmt::format("--algorithm '{}': expected ring, tree or hierarchical", name));
}

CommModel::CommModel() : intra_node_link(*find_link_preset("nvlink4")) {}

namespace link_model_impl {
namespace {
// Each direction carries its own bytes/bw; a link without bandwidth (an unfitted "loopback")
// would divide by zero, so it is refused rather than predicting infinity.
double link_transfer_seconds(const LinkSpec& link, double bytes) {
  if (!(link.bandwidth_bytes_per_s > 0))
    throw ConfigError(fmt::format("link '{}' has no bandwidth: fit it from a run or give one", link.name));
  return bytes / link.bandwidth_bytes_per_s;
}
}  // namespace
}  // namespace link_model_impl

double ring_allreduce_seconds(const LinkSpec& link, int n, double bytes) {
  if (n <= 1) return 0;
  // Reduce-scatter then all-gather: 2(n-1) steps, each sending one n-th of the buffer.
  const double steps = 2.0 * (n - 1);
  return steps / n * link_model_impl::link_transfer_seconds(link, bytes) + steps * link.latency_s;
}

double tree_allreduce_seconds(const LinkSpec& link, int n, double bytes) {
  if (n <= 1) return 0;
  // Reduce up a binary tree and broadcast down it: ⌈log2 n⌉ levels each way, the whole buffer per level.
  return 2.0 * link_model_impl::ceil_log2(n) * (link.latency_s + link_model_impl::link_transfer_seconds(link, bytes));
}

double hierarchical_allreduce_seconds(const LinkSpec& intra, const LinkSpec& inter,
                                      int devices_per_node, int n, double bytes) {
  if (n <= 1) return 0;
  const int p = std::max(1, std::min(n, devices_per_node));
  const int m = (n + p - 1) / p;  // nodes
  if (m <= 1) return ring_allreduce_seconds(intra, n, bytes);
  // Reduce-scatter inside the node, then each device all-reduces its 1/p share with its peers
  // on the other nodes over its own network port, then all-gather inside the node.
  double in_node = 0;
  if (p > 1)
    in_node = 2.0 * ((p - 1.0) / p * link_model_impl::link_transfer_seconds(intra, bytes) + (p - 1.0) * intra.latency_s);
  return in_node + ring_allreduce_seconds(inter, m, bytes / p);
}

double allreduce_seconds(const CommModel& model, int n, double bytes) {
  switch (model.algorithm) {
    case AllReduceAlgorithm::kRing: return ring_allreduce_seconds(model.link, n, bytes);
    case AllReduceAlgorithm::kTree: return tree_allreduce_seconds(model.link, n, bytes);
    case AllReduceAlgorithm::kHierarchical:
      return hierarchical_allreduce_seconds(model.intra_node_link, model.link, model.devices_per_node, n, bytes);
  }
  return 0;
}

}  // namespace mirror
