#pragma once
// The plain SimGrid platform the replay tests run on: n hosts of 1 Gflop/s, each with a private 1 GB/s
// SPLITDUPLEX link of 1 us, as a SimGrid <cluster>.
#include <string>

#include "models/mpi/simgrid_platform.h"

namespace hpcsim::test {

inline SimgridPlatform simgrid_cluster(int n) {
  return parse_simgrid_platform("<platform version='4.1'><cluster id='c' prefix='n' radical='0-" + std::to_string(n - 1) +
                                    "' speed='1Gf' bw='1GBps' lat='1us' sharing_policy='SPLITDUPLEX'/></platform>",
                                "cluster.xml");
}

}  // namespace hpcsim::test
