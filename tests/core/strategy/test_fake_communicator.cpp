// The test double for communicators: real sums, failures and stalls where a test asks.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <chrono>
#include <string>
#include <thread>

#include "mirror/strategy/fake_communicator.h"

using namespace mirror;

TEST(FakeCommunicator, SumsForRealAndFailsOrStallsWhereAsked) {
  FakeCommunicator fake(2, FaultPlan{/*rank=*/1, /*fail_at_call=*/3, /*delay_at_call=*/2, /*delay_ms=*/60});
  std::vector<std::vector<torch::Tensor>> data = {{torch::ones({8})}, {torch::full({8}, 2.0f)}};
  std::vector<std::string> errors(2);
  std::vector<double> second_call_ms(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      try {
        for (int call = 1; call <= 3; ++call) {
          const auto t0 = std::chrono::steady_clock::now();
          fake.allreduce_sum(r, data[r])->wait();
          if (call == 2)
            second_call_ms[r] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        }
      } catch (const std::exception& e) {
        errors[r] = e.what();
        fake.abort(e.what());  // as the replica pool does: wake the peer
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_FLOAT_EQ(data[0][0][0].item<float>(), 6.0f);  // 1 + 2 = 3, then 3 + 3 = 6; the third never summed
  EXPECT_NE(errors[1].find("injected failure in collective 3 on rank 1"), std::string::npos) << errors[1];
  EXPECT_FALSE(errors[0].empty()) << "rank 0 must be woken, not left waiting";
  EXPECT_GE(second_call_ms[0], 30) << "rank 0 waits for the stalled rank 1 (60 ms)";
  EXPECT_EQ(fake.calls(1), 3);
}
