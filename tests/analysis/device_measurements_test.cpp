// The reader of the hpcsim-cuda-bench CSV: header, rows and params as written; every malformed file refused at
// its file:line:column; rows of every benchmark in the suite (and its simulated twins) read back.
#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "driver/device_measurements.h"
#include "configs/config_error.h"
#include "device_csv.h"

using namespace hpcsim;
using hpcsim::test::kV100Header;
using hpcsim::test::read_error;
using hpcsim::test::read_text;

TEST_CASE("device measurements: header, rows, params and lines are read as written", "[device]") {
  const DeviceMeasurements m = read_text(kV100Header +
                                         "copy,bytes=1048576,gbps,700.5,GB/s\n"
                                         "\n"
                                         "gemm,m=64;n=32;k=16;dtype=fp16,tflops,1e1,TFLOP/s\n");
  CHECK(m.header_value("gpu") == std::optional<std::string>("Tesla V100-SXM2-16GB"));
  CHECK(m.header_value("sm_count") == std::optional<std::string>("80"));
  CHECK_FALSE(m.header_value("driver_version"));
  REQUIRE(m.rows.size() == 2);
  CHECK(m.rows[0].benchmark == "copy");
  CHECK(m.rows[0].value == 700.5);
  CHECK(m.rows[0].line == 7);
  CHECK(m.rows[1].line == 9);
  CHECK(m.rows[1].params_text() == "m=64;n=32;k=16;dtype=fp16");
  REQUIRE(m.rows[1].param("k"));
  CHECK(*m.rows[1].param("k") == "16");
  CHECK(m.rows[1].param("batch") == nullptr);
  CHECK(m.rows[1].value == 10);
}

TEST_CASE("device measurements: a file that is not the suite's CSV is refused at its line and column", "[device]") {
  CHECK(read_error("") == "F:1:1: empty file: the first line must be '# hpcsim-cuda-bench 1'");
  CHECK(read_error("benchmark,params,metric,value,unit\n").rfind("F:1:1: not a hpcsim-cuda-bench CSV", 0) == 0);
  CHECK(read_error("# hpcsim-cuda-bench 1\n# gpu: x\n").rfind("F:2:1: no column line", 0) == 0);
  CHECK(read_error("# hpcsim-cuda-bench 1\nbench,params\n").rfind("F:2:1: expected the column line", 0) == 0);
  CHECK(read_error("# hpcsim-cuda-bench 1\n# no colon here\n").rfind("F:2:1: a header line is", 0) == 0);
  CHECK(read_error(kV100Header + "# late: header\n").rfind("F:7:1: header lines come before", 0) == 0);
  CHECK(read_error(kV100Header + "copy,bytes=1,gbps,1\n").rfind("F:7:1: a row has 5 fields", 0) == 0);
  CHECK(read_error(kV100Header + "copy,bytes=1,gbps,fast,GB/s\n") == "F:7:19: the value 'fast' is not a finite number");
  CHECK(read_error(kV100Header + "copy,bytes=1,gbps,nan,GB/s\n") == "F:7:19: the value 'nan' is not a finite number");
  CHECK(read_error(kV100Header + "gemm,m=1;n2,tflops,1,TFLOP/s\n") == "F:7:10: a param is key=value, not 'n2'");
  CHECK(read_error(kV100Header + ",bytes=1,gbps,1,GB/s\n") == "F:7:1: empty benchmark name");
  CHECK(read_error("# hpcsim-cuda-bench 2\n") == "F:1:1: not a hpcsim-cuda-bench CSV: the first line must be '# hpcsim-cuda-bench 1'");
  CHECK(read_error("# hpcsim-cuda-bench 1\n#: no key\n") == "F:2:1: a header line is '# key: value', this one has no key");
  CHECK(read_error("# hpcsim-cuda-bench 1\n\ncopy,bytes=1,gbps,1,GB/s\n").rfind("F:3:1: expected the column line", 0) == 0);
  CHECK(read_error(kV100Header + "copy,bytes=1,gbps,1,GB/s,extra\n") ==
        "F:7:1: a row has 5 fields (benchmark,params,metric,value,unit), this one 6");
  CHECK(read_error(kV100Header + "copy,bytes=1,,1,GB/s\n") == "F:7:14: empty metric");
  CHECK(read_error(kV100Header + "copy,bytes=1,-inf,1,GB/s\n") == "F:7:14: a metric name is a word (letters, digits, _ - .), not '-inf'");
  CHECK(read_error(kV100Header + "copy,bytes=1,NaN,1,GB/s\n") == "F:7:14: a metric name is a word (letters, digits, _ - .), not 'NaN'");
  CHECK(read_error(kV100Header + "copy,bytes=1,gbps,,GB/s\n") == "F:7:19: the value '' is not a finite number");
  CHECK(read_error(kV100Header + "copy,bytes=1,gbps,1e999,GB/s\n") == "F:7:19: the value '1e999' is not a finite number");
  CHECK(read_error(kV100Header + "copy,bytes=1,gbps,12x,GB/s\n") == "F:7:19: the value '12x' is not a finite number");
  CHECK(read_error(kV100Header + "gemm,m=1;=2,tflops,1,TFLOP/s\n") == "F:7:10: a param is key=value, not '=2'");
  CHECK(read_error(kV100Header + "gemm,m=1;n=,tflops,1,TFLOP/s\n") == "F:7:10: a param is key=value, not 'n='");
  CHECK(read_error(kV100Header + "gemm,m=1;m=2,tflops,1,TFLOP/s\n") == "F:7:10: the param m is given twice");
  CHECK(read_error(kV100Header + "copy,bytes=1,gbps,1,GB/sec\n").rfind("F:7:21: unknown unit 'GB/sec' (known: ns, us,", 0) == 0);
  CHECK(read_error(kV100Header + "copy,bytes=1,gbps,1,\n").rfind("F:7:21: unknown unit ''", 0) == 0);
  CHECK_THROWS_AS(read_device_measurements("/nonexistent/device.csv"), std::runtime_error);
}

TEST_CASE("device measurements: rows of the new benchmarks read back with their params", "[device]") {
  const DeviceMeasurements m = read_text(kV100Header +
                                         "pointer-chase,footprint_bytes=4096,latency,28.1,cycles\n"
                                         "pointer-chase,footprint_bytes=268435456,latency,431.5,cycles\n"
                                         "coalescing,stride=32,gbps,101.5,GB/s\n"
                                         "bank-conflicts,stride=2,cycles_per_access,2.01,cycles\n"
                                         "divergence,paths=8,time_us,40.2,us\n"
                                         "fma-ilp,chains=4,cycles_per_fma,1.02,cycles\n"
                                         "occupancy-sweep,block=256;regs=68,gbps,812,GB/s\n"
                                         "overlap,memory=pageable,overlap_fraction,0.05,fraction\n"
                                         "launch,graph=1,gpu_us,0.9,us\n");
  REQUIRE(m.rows.size() == 9);
  for (const auto& row : m.rows) CHECK(row.params.size() >= 1);
  REQUIRE(m.rows[0].param("footprint_bytes"));
  CHECK(std::stoll(*m.rows[0].param("footprint_bytes")) == 4096);
  CHECK(std::stoll(*m.rows[1].param("footprint_bytes")) == 268435456LL);
  CHECK(m.rows[1].metric == "latency");
  CHECK(m.rows[1].unit == "cycles");
  CHECK(m.rows[1].value == 431.5);
  CHECK(m.rows[2].benchmark == "coalescing");
  CHECK(*m.rows[3].param("stride") == "2");
  CHECK(m.rows[6].params_text() == "block=256;regs=68");
  CHECK(*m.rows[7].param("memory") == "pageable");
  CHECK(*m.rows[8].param("graph") == "1");
}

TEST_CASE("device measurements: every unit the suite writes is one the reader knows", "[device]") {
  const auto& units = device_measurement_units();
  for (const char* unit : {"us", "GB/s", "TFLOP/s", "blocks", "cycles", "fraction", "1/cycle", "G/s"}) {
    CHECK(std::find(units.begin(), units.end(), unit) != units.end());
  }
}
