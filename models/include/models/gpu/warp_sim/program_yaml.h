#pragma once
// The YAML form of a WarpSim kernel (`hpcsim microbench --kernel FILE`), the same program ProgramBuilder makes:
//
//   kernel: strided-read
//   launch: {blocks: 640, threads: 256, registers: 32, shared_memory: 0}   # shared_memory in bytes
//   program:
//     - loop: 16
//       body:
//         - load_global: {dst: 1, bytes: 4, address: {tx: 128, bx: 32768, iter: 20971520}}
//         - fp32: {dst: 2, src: [2, 1]}
//     - barrier: {}
//
// Instructions: int, fp32, fp64, sfu ({dst, src: [a, b]}), mma ({precision, acc, fragment}), load_global and
// load_shared ({dst, bytes, address, after}), store_global and store_shared ({value, bytes, address}), barrier,
// clock ({after}), loop: N and branch: P (each with a body list). Address keys as AddressExpr: base, tdim, tx,
// ty, bdim, bx, by, iter, outer_iter, wrap (bytes). Every error is a ConfigError at file:line:column.
#include "configs/config_node.h"
#include "models/gpu/warp_sim/kernel_program.h"

namespace hpcsim {

KernelProgram parse_kernel_program(const ConfigNode& root);

}  // namespace hpcsim
