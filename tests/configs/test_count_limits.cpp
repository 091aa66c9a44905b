// Integer keys stay in the range the model counts in, and counts that make a run large are refused past their
// limit with the number needed and the --limit flag that raises it (configs/count_limits.h).
#include <catch2/catch.hpp>

#include "configs/config_test_support.h"

#include "configs/count_limits.h"
#include "configs/loader.h"
#include "configs/schema.h"

using namespace hpcsim;
using hpcsim::test::error_of;

namespace {

std::string check(const Schema& schema, const std::string& value) {
  return error_of([&] { schema.validate(parse_config_text("v: " + value + "\n", "t.yaml").at("v")); });
}

// Restores a limit the test changed, so other tests see the defaults.
struct RestoreLimit {
  CountLimit limit;
  double value = count_limit(limit);
  ~RestoreLimit() { set_count_limit(std::string(name()) + "=" + std::to_string(static_cast<long long>(value))); }
  const char* name() const {
    for (const CountLimitInfo& info : count_limit_table())
      if (info.limit == limit) return info.name;
    return "";
  }
};

}  // namespace

TEST_CASE("integer keys are at most 2^31-1 in size unless wide", "[configs][schema][limits]") {
  const Schema count = Schema::integer().at_least(1);
  CHECK(check(count, "2147483647") == "no error");
  CHECK(check(count, "2147483648") ==
        "t.yaml:1:4: an integer here may be at most 2147483647 in size (2^31-1), the range hpcsim counts in, got "
        "2147483648");
  CHECK(check(count, "3e9") != "no error");
  CHECK(check(Schema::integer(), "-2147483648") != "no error");
  CHECK(check(Schema::integer(), "-2147483647") == "no error");
  // A key's own bound is reported first when it is tighter.
  CHECK(check(Schema::integer().at_most(1e9), "3000000000") == "t.yaml:1:4: must be <= 1e+09, got 3000000000");
  // Seeds and ids take any 64-bit value.
  CHECK(check(Schema::integer().wide().at_least(0), "9007199254740993") == "no error");
  CHECK_THROWS_AS(Schema::number().wide(), std::logic_error);
}

TEST_CASE("a count past its limit names the number, the limit and the flag", "[configs][limits]") {
  const SourceLoc at{"t.yaml", 3, 5};
  CHECK(error_of([&] { check_count(CountLimit::gpus, 262144, at, "the cluster"); }) == "no error");
  CHECK(error_of([&] { check_count(CountLimit::gpus, 800000, at, "the cluster (100000 nodes x 8 GPUs)"); }) ==
        "t.yaml:3:5: the cluster (100000 nodes x 8 GPUs) needs 800,000 GPUs; hpcsim simulates at most 262,144 by "
        "default (raise it with --limit gpus=N)");
  CHECK(error_of([&] { check_count(CountLimit::trials, 1e12, SourceLoc{"--vary x"}, "the grid"); }) ==
        "--vary x: the grid needs 1,000,000,000,000 trials; hpcsim simulates at most 100,000 by default (raise it "
        "with --limit trials=N)");
  CHECK(error_of([&] { check_count(CountLimit::samples, 1e300, at, "the dataset"); }).find("1e+300 samples") !=
        std::string::npos);
}

TEST_CASE("a limit is raised or lowered by NAME=N, as the --limit flag gives it", "[configs][limits]") {
  RestoreLimit restore{CountLimit::layers};
  set_count_limit("layers=20000");
  CHECK(count_limit(CountLimit::layers) == 20000);
  const SourceLoc at{"t.yaml", 1, 1};
  CHECK(error_of([&] { check_count(CountLimit::layers, 15000, at, "the model"); }) == "no error");
  set_count_limit("layers=10");
  CHECK(error_of([&] { check_count(CountLimit::layers, 11, at, "the model"); }) ==
        "t.yaml:1:1: the model needs 11 layers; hpcsim simulates at most 10 (raise it with --limit layers=N)");
  CHECK_THROWS_WITH(set_count_limit("layer=5"), Catch::Contains("unknown limit 'layer'") && Catch::Contains("layers"));
  CHECK_THROWS_WITH(set_count_limit("layers=0"), Catch::Contains("a whole number >= 1"));
  CHECK_THROWS_WITH(set_count_limit("layers=1.5"), Catch::Contains("a whole number >= 1"));
  CHECK_THROWS_WITH(set_count_limit("layers=inf"), Catch::Contains("a whole number >= 1"));
  CHECK_THROWS_WITH(set_count_limit("layers"), Catch::Contains("expected NAME=N"));
}

TEST_CASE("every limit has a name, a default and its measured cost", "[configs][limits]") {
  for (const CountLimitInfo& info : count_limit_table()) {
    CHECK(std::string(info.name).size() > 0);
    CHECK(info.default_value >= 1);
    CHECK(std::string(info.cost).size() > 0);
    CHECK(count_limit(info.limit) == info.default_value);
  }
}
