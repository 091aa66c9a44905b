#pragma once
// The classes of CPU op the roofline in cpu_op_time.h tells apart; a layer declares which its forward is.
namespace hpcsim {

enum class CpuOpClass { gemm, conv, streaming };

}  // namespace hpcsim
