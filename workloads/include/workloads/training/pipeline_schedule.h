#pragma once
// The order in which one pipeline stage runs its forward and backward passes.
//  - gpipe: every microbatch forward, then every backward (Huang et al. 2019);
//  - 1f1b: pp - stage - 1 warm-up forwards, then one forward and one backward alternately, then the
//    remaining backwards (PipeDream-Flush, Narayanan et al. 2021), so a stage holds at most pp - stage
//    microbatches of activations;
//  - interleaved: 1F1B over `chunks` model chunks per GPU (virtual stages), microbatches taken in groups
//    of pp (Megatron-LM, Narayanan et al. SC21), which shrinks the bubble by the number of chunks.
#include <vector>

#include "configs/enum_names.h"

namespace hpcsim {

enum class PipelineSchedule { gpipe, one_f_one_b, interleaved };

inline constexpr EnumNames<PipelineSchedule, 3> kPipelineScheduleNames{
    {{{PipelineSchedule::gpipe, "gpipe"}, {PipelineSchedule::one_f_one_b, "1f1b"}, {PipelineSchedule::interleaved, "interleaved"}}}};

struct PipelinePass {
  bool forward = true;
  int microbatch = 0;
  int chunk = 0;  // model chunk on this GPU: virtual stage chunk * stages + stage
};

// std::invalid_argument for stage outside 0..stages-1, microbatches or chunks below 1, chunks > 1 with a
// schedule other than interleaved, or interleaving with microbatches not a multiple of stages.
std::vector<PipelinePass> pipeline_order(PipelineSchedule schedule, int stage, int stages, int microbatches,
                                         int chunks = 1);

// Microbatches whose activations a stage holds at once under the schedule (before they are freed by
// their backward pass), counting a chunk's microbatch as 1 / chunks of the stage's activations.
double microbatches_in_flight(PipelineSchedule schedule, int stage, int stages, int microbatches, int chunks = 1);

}  // namespace hpcsim
