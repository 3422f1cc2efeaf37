// The links of the what-if and the simulated link: presets, the --link text, the all-reduce formulas.
#include <gtest/gtest.h>

#include <limits>

#include <cmath>

#include "mirror/strategy/link_model.h"
#include "mirror/util/error.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::error_of;

TEST(LinkModel, PresetsCarryTheirPublishedPerDirectionFigures) {
  // NVLink 4: 900 GB/s counts both directions; the model uses one.
  EXPECT_DOUBLE_EQ(find_link_preset("nvlink4")->bandwidth_bytes_per_s, 450e9);
  EXPECT_NEAR(find_link_preset("pcie5")->bandwidth_bytes_per_s, 63.0e9, 0.1e9);
  EXPECT_DOUBLE_EQ(find_link_preset("IB_NDR400")->bandwidth_bytes_per_s, 50e9);
  EXPECT_DOUBLE_EQ(find_link_preset("100gbe")->bandwidth_bytes_per_s, 12.5e9);
  EXPECT_DOUBLE_EQ(find_link_preset("25gbe")->bandwidth_bytes_per_s, 3.125e9);
  EXPECT_DOUBLE_EQ(find_link_preset("10gbe")->bandwidth_bytes_per_s, 1.25e9);
  EXPECT_TRUE(find_link_preset("loopback")->from_run);
  for (const LinkSpec& p : link_presets()) EXPECT_FALSE(p.source.empty()) << p.name;
  EXPECT_FALSE(find_link_preset("nvlink5"));
}

TEST(LinkModel, ParsesLatencyAndBandwidthWithUnits) {
  LinkSpec a = parse_link("latency=5us,bandwidth=1Gbit");
  EXPECT_DOUBLE_EQ(a.latency_s, 5e-6);
  EXPECT_DOUBLE_EQ(a.bandwidth_bytes_per_s, 125e6);
  EXPECT_FALSE(a.simulated);
  LinkSpec b = parse_link(" bandwidth=10GB/s , latency=2ms ");
  EXPECT_DOUBLE_EQ(b.latency_s, 2e-3);
  EXPECT_DOUBLE_EQ(b.bandwidth_bytes_per_s, 10e9);
  EXPECT_DOUBLE_EQ(parse_link("bandwidth=200Mbit").bandwidth_bytes_per_s, 25e6);
  EXPECT_DOUBLE_EQ(parse_link("bandwidth=200Mbit").latency_s, 0);
  EXPECT_DOUBLE_EQ(parse_link("latency=1s,bandwidth=3kbyte").bandwidth_bytes_per_s, 3e3);
  EXPECT_DOUBLE_EQ(parse_link("latency=100ns,bandwidth=1Tbit").latency_s, 100e-9);
  EXPECT_EQ(parse_link("10GbE").name, "10gbe");
  // The text round-trips.
  EXPECT_EQ(parse_link(b.spec_text()).bandwidth_bytes_per_s, b.bandwidth_bytes_per_s);
  EXPECT_EQ(parse_link(b.spec_text()).latency_s, b.latency_s);
  EXPECT_EQ(parse_link("ib-ndr400").spec_text(), "ib-ndr400");
}

TEST(LinkModel, ParseErrorsNameTheBadPartAndWhatWouldDo) {
  auto message = [](const std::string& text) { return error_of<ConfigError>([&] { parse_link(text); }); };
  EXPECT_NE(message("bandwidth=1Gb").find("say bit or byte"), std::string::npos) << message("bandwidth=1Gb");
  EXPECT_NE(message("latency=5,bandwidth=1Gbit").find("ns, us, ms, s"), std::string::npos);
  EXPECT_NE(message("latency=").find("expected a number"), std::string::npos);
  EXPECT_NE(message("latency=5us,bandwidth=fast").find("expected a number"), std::string::npos);
  EXPECT_NE(message("bandwidth=1Gbit,jitter=3ms").find("unknown key 'jitter'"), std::string::npos);
  EXPECT_NE(message("bandwidth=0Gbit").find("more than 0"), std::string::npos);
  EXPECT_NE(message("latency=-1us,bandwidth=1Gbit").find("negative"), std::string::npos);
  EXPECT_NE(message("warp-drive").find("not a preset (nvlink4, pcie5"), std::string::npos);
  EXPECT_NE(message("").find("empty"), std::string::npos);
  EXPECT_NE(error_of<ConfigError>([] { parse_algorithm("butterfly"); }).find("ring, tree or hierarchical"),
            std::string::npos);
}

// A probe found `latency=1e12s` and `bandwidth=1e-300bit` accepted, labelled simulated, and then
// adding no wait at all (the delay overflowed the clock); and a bare latency refused.
TEST(LinkModel, FiguresOutsideASaneRangeAreRefusedNamingItAndABareLatencyHasUnlimitedBandwidth) {
  auto message = [](const std::string& text) { return error_of<ConfigError>([&] { parse_link(text); }); };
  EXPECT_NE(message("latency=1e12s").find("is beyond 10 s: a link's latency may be 0 to 10 s"), std::string::npos)
      << message("latency=1e12s");
  EXPECT_NE(message("latency=11s,bandwidth=1Gbit").find("0 to 10 s"), std::string::npos);
  EXPECT_NE(message("bandwidth=1e-300bit").find("outside 1kbit to 1000Tbit per second"), std::string::npos)
      << message("bandwidth=1e-300bit");
  EXPECT_NE(message("bandwidth=999bit").find("outside 1kbit"), std::string::npos);
  EXPECT_NE(message("bandwidth=1e300Tbit").find("outside 1kbit"), std::string::npos);
  EXPECT_NE(message("bandwidth=1001Tbit").find("outside 1kbit"), std::string::npos);
  // The edges are in.
  EXPECT_DOUBLE_EQ(parse_link("latency=10s,bandwidth=1kbit").latency_s, 10);
  EXPECT_DOUBLE_EQ(parse_link("bandwidth=1000Tbit").bandwidth_bytes_per_s, kMaxLinkBandwidthBytes);
  EXPECT_DOUBLE_EQ(parse_link("bandwidth=1kbit").bandwidth_bytes_per_s, kMinLinkBandwidthBytes);

  const LinkSpec bare = parse_link("latency=10ms");
  EXPECT_TRUE(bare.unlimited_bandwidth());
  EXPECT_DOUBLE_EQ(bare.latency_s, 10e-3);
  EXPECT_EQ(bare.spec_text(), "latency=10ms");
  EXPECT_EQ(bare.describe(), "custom: 10ms latency, unlimited bandwidth");
  EXPECT_TRUE(parse_link(bare.spec_text()).unlimited_bandwidth());
  // Only the latency costs: two ring steps over two devices, whatever the bytes.
  EXPECT_DOUBLE_EQ(ring_allreduce_seconds(bare, 2, 1e9), 2 * 10e-3);
  EXPECT_DOUBLE_EQ(tree_allreduce_seconds(bare, 4, 1e9), 4 * 10e-3);
  EXPECT_NO_THROW(check_link_range(bare));

  // Figures that did not come through parse_link (a config file) are checked the same way.
  LinkSpec far = bare;
  far.latency_s = 1e12;
  EXPECT_NE(error_of<ConfigError>([&] { check_link_range(far); }).find("outside 0 to 10 s"), std::string::npos);
  far = bare;
  far.bandwidth_bytes_per_s = 1e-300;
  EXPECT_NE(error_of<ConfigError>([&] { check_link_range(far); }).find("outside 1kbit to 1000Tbit"), std::string::npos);
  far.bandwidth_bytes_per_s = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(check_link_range(far), ConfigError);
  far = bare;
  far.latency_s = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(check_link_range(far), ConfigError);
}

TEST(LinkModel, RingCostsNothingOnOneDeviceAndFollowsItsFormula) {
  LinkSpec link = parse_link("latency=10us,bandwidth=1GB");
  EXPECT_EQ(ring_allreduce_seconds(link, 1, 4e6), 0);
  EXPECT_EQ(tree_allreduce_seconds(link, 1, 4e6), 0);
  EXPECT_EQ(hierarchical_allreduce_seconds(link, link, 8, 1, 4e6), 0);
  // 2(n-1)/n · bytes/bw + 2(n-1)·α at n = 4, 4 MB: 1.5 · 4 ms + 6 · 10 us.
  EXPECT_NEAR(ring_allreduce_seconds(link, 4, 4e6), 6e-3 + 60e-6, 1e-12);
  // Ring bandwidth term approaches 2 · bytes/bw.
  EXPECT_LT(ring_allreduce_seconds(parse_link("bandwidth=1GB"), 512, 4e6), 8e-3);
  EXPECT_GT(ring_allreduce_seconds(parse_link("bandwidth=1GB"), 512, 4e6), 7.9e-3);
  // Tree: 2 · ⌈log2 n⌉ · (α + bytes/bw); 5 devices take 3 levels.
  EXPECT_NEAR(tree_allreduce_seconds(link, 5, 4e6), 6 * (10e-6 + 4e-3), 1e-12);
}

TEST(LinkModel, HierarchicalIsTheIntraRingInsideANodeAndAddsTheNetworkAcrossNodes) {
  LinkSpec fast = parse_link("latency=1us,bandwidth=100GB");
  LinkSpec slow = parse_link("latency=10us,bandwidth=1GB");
  EXPECT_DOUBLE_EQ(hierarchical_allreduce_seconds(fast, slow, 8, 8, 8e6), ring_allreduce_seconds(fast, 8, 8e6));
  // 16 devices, 8 per node: in-node reduce-scatter + all-gather, then a 2-node ring over 1 MB shares.
  const double expect = 2 * (7.0 / 8 * 8e6 / 100e9 + 7 * 1e-6) + ring_allreduce_seconds(slow, 2, 1e6);
  EXPECT_NEAR(hierarchical_allreduce_seconds(fast, slow, 8, 16, 8e6), expect, 1e-12);
  // Cheaper than a flat ring over the slow network.
  EXPECT_LT(hierarchical_allreduce_seconds(fast, slow, 8, 64, 8e6), ring_allreduce_seconds(slow, 64, 8e6));
  CommModel model;
  model.algorithm = AllReduceAlgorithm::kHierarchical;
  model.link = slow;
  EXPECT_EQ(model.intra_node_link.name, "nvlink4");
  EXPECT_GT(allreduce_seconds(model, 16, 8e6), 0);
}
