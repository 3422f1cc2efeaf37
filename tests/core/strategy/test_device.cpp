#include <gtest/gtest.h>

#include "mirror/strategy/communicator.h"
#include "mirror/strategy/device.h"
#include "mirror/util/error.h"

using namespace mirror;

namespace {
std::vector<PhysicalDevice> cpu_and_two_gpus() {
  std::vector<PhysicalDevice> d(3);
  d[0] = {DeviceType::kCpu, 0, "cpu:0", "x86_64, 2 cores", 2, 0};
  d[1] = {DeviceType::kCuda, 0, "cuda:0", "H200", 0, 143000};
  d[2] = {DeviceType::kCuda, 1, "cuda:1", "H200", 0, 143000};
  return d;
}

std::string error_of(const DeviceRequest& r, const std::vector<PhysicalDevice>& avail) {
  try {
    resolve_devices(r, avail);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Devices, ThisMachineHasACpu) {
  const auto found = list_physical_devices();
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].type, DeviceType::kCpu);
  EXPECT_GE(found[0].cores, 1);
}

TEST(Devices, LogicalSplitOfCpuNamesEachReplica) {
  const auto d = resolve_devices({"cpu", 3, 512}, cpu_and_two_gpus());
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].name(), "cpu:0/logical:0");
  EXPECT_EQ(d[2].name(), "cpu:0/logical:2");
  EXPECT_EQ(d[1].memory_limit_mib, 512);
  EXPECT_EQ(resolve_devices({"cpu", 1, 0}, cpu_and_two_gpus())[0].name(), "cpu:0");
}

TEST(Devices, TutorialTwoLogicalGpusOnOneGpu) {
  const auto d = resolve_devices({"cuda:0", 2, 1024}, cpu_and_two_gpus());
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].name(), "cuda:0/logical:0");
  EXPECT_EQ(d[1].name(), "cuda:0/logical:1");
  // NCCL refuses two ranks on one GPU, so logical GPUs reduce to one device, as TensorFlow does.
  const auto c = choose_communicator("auto", d);
  EXPECT_EQ(c.name, "reduce-to-one");
  EXPECT_NE(c.reason.find("share a physical device"), std::string::npos);
}

TEST(Devices, AllGpusAndAListOfGpus) {
  EXPECT_EQ(resolve_devices({"cuda", 1, 0}, cpu_and_two_gpus()).size(), 2u);
  const auto d = resolve_devices({"cuda:1,0", 2, 0}, cpu_and_two_gpus());
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].name(), "cuda:1/logical:0");
  EXPECT_EQ(d[3].name(), "cuda:0/logical:1");
}

TEST(Devices, ImpossibleRequestsListWhatIsAvailable) {
  std::vector<PhysicalDevice> cpu_only = {cpu_and_two_gpus()[0]};
  const auto e = error_of({"cuda", 1, 0}, cpu_only);
  EXPECT_NE(e.find("no CUDA GPU"), std::string::npos) << e;
  EXPECT_NE(e.find("cpu:0 (x86_64, 2 cores)"), std::string::npos) << e;
  EXPECT_NE(error_of({"cuda:5", 1, 0}, cpu_and_two_gpus()).find("there is no cuda:5"), std::string::npos);
  EXPECT_NE(error_of({"cuda:0,0", 1, 0}, cpu_and_two_gpus()).find("listed twice"), std::string::npos);
  EXPECT_NE(error_of({"cuda:x", 1, 0}, cpu_and_two_gpus()).find("not a GPU index"), std::string::npos);
  EXPECT_NE(error_of({"tpu", 1, 0}, cpu_and_two_gpus()).find("not understood"), std::string::npos);
  EXPECT_NE(error_of({"cpu", 0, 0}, cpu_and_two_gpus()).find("--logical must be in [1, 64]"), std::string::npos);
  EXPECT_NE(error_of({"cpu", 65, 0}, cpu_and_two_gpus()).find("--logical"), std::string::npos);
  EXPECT_NE(error_of({"cpu", 2, -5}, cpu_and_two_gpus()).find("--memory-limit"), std::string::npos);
}

TEST(Devices, CommunicatorChoiceExplainsItself) {
  const auto one = resolve_devices({"cpu", 1, 0}, cpu_and_two_gpus());
  EXPECT_EQ(choose_communicator("auto", one).name, "none");
  const auto two = resolve_devices({"cpu", 2, 0}, cpu_and_two_gpus());
  EXPECT_EQ(choose_communicator("auto", two).name, "shared-memory");
  EXPECT_EQ(choose_communicator("reduce-to-one", two).name, "reduce-to-one");
  const auto gpus = resolve_devices({"cuda", 1, 0}, cpu_and_two_gpus());
  try {
    choose_communicator("shared-memory", gpus);
    ADD_FAILURE() << "shared-memory must refuse GPU replicas";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("needs CPU replicas"), std::string::npos) << e.what();
  }
  try {
    choose_communicator("nccl-please", two);
    ADD_FAILURE() << "an unknown backend must be refused";
  } catch (const ConfigError& e) {  // the message lists what there is
    EXPECT_NE(std::string(e.what()).find("auto, none, reduce-to-one, shared-memory"), std::string::npos) << e.what();
  }
}
