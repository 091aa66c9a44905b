// The execution graph of a (pipelined, tensor- and data-parallel) training step.
#include "step_planner.h"

#include <algorithm>

namespace hpcsim::training_detail {

void StepPlanner::build() {
  if (is_gan()) return build_gan();
  const int pp = plan_.layout.pp, vp = plan_.layout.vp, V = plan_.layout.virtual_stages(), m = run_.microbatches;
  const bool data_parallel = plan_.layout.replicas() > 1;
  const double grad_bytes = gradient_bytes_per_param(run_.precision);
  const double weight_bytes = weight_bytes_per_param(run_.precision);
  const bool zero3 = run_.zero >= 3;
  // Megatron's --overlap-param-gather: the distributed optimizer's parameter all-gather, bucket by bucket,
  // behind the next step's first forward instead of after the update.
  const bool gather_in_forward = data_parallel && run_.overlap_param_gather && (run_.zero == 1 || run_.zero == 2);
  // Ops that start (first) and end (last) each pass, to wire the stages together afterwards.
  std::vector<std::vector<OpId>> f_first(V, std::vector<OpId>(m)), f_last = f_first, b_first = f_first, b_last = f_first;
  plan_.pass_ops.assign(pp, {});
  std::vector<std::vector<OpId>> stage_reductions(pp);

  for (int s = 0; s < pp; ++s) {
    const std::vector<PipelinePass> order = pipeline_order(run_.schedule, s, pp, m, vp);
    std::vector<int> backwards_left(vp, m);
    std::vector<bool> gathered(vp, false);
    for (const PipelinePass& pass : order) {
      const int v = pass.chunk * pp + s;
      const StageCost& c = plan_.stages[v];
      const std::string id = std::to_string(v) + ".mb" + std::to_string(pass.microbatch);
      const StreamId stream = plan_.compute_stream(s);
      auto add = [&](OpId op, OpId& first) {
        if (first == kNoOp) first = op;
        plan_.pass_ops[s].push_back(op);
        return op;
      };
      OpId first = kNoOp, last = kNoOp;
      if (pass.forward) {
        if (zero3) {  // FSDP: gather each unit's parameters just before its forward
          for (const Bucket& u : buckets(c, run_.bucket_bytes, true)) {
            const OpId gather = collective("fwd_allgather." + id, CollectiveOp::allgather, u.params * weight_bytes, s);
            double t = 0;
            for (std::size_t i = u.first; i < u.last; ++i) t += costs_[i].forward_s / plan_.layout.cp;
            last = add(fixed("fwd." + id, t, stream, kComputeTag), first);
            plan_.graph.add_dependency(gather, last);
          }
        } else if (gather_in_forward && !gathered[pass.chunk]) {
          gathered[pass.chunk] = true;
          for (const Bucket& b : buckets(c, run_.bucket_bytes, false)) {
            double t = 0;
            for (std::size_t i = b.first; i < b.last; ++i) t += costs_[i].forward_s / plan_.layout.cp;
            last = add(fixed("fwd." + id, t, stream, kComputeTag), first);
            if (b.params <= 0) continue;
            const OpId gather = collective("param_allgather." + std::to_string(v) + "." + std::to_string(b.first),
                                           CollectiveOp::allgather, b.params * weight_bytes, s);
            plan_.graph.add_dependency(gather, last);
          }
        } else {
          last = add(fixed("fwd.stage" + id, c.forward_s, stream, kComputeTag), first);
        }
        if (c.tp_forward_s > 0) last = add(fixed("fwd_tp_comm." + id, c.tp_forward_s, stream, kCommunicationTag), first);
        f_first[v][pass.microbatch] = first, f_last[v][pass.microbatch] = last;
        continue;
      }
      const bool final_backward = --backwards_left[pass.chunk] == 0;
      if (c.recompute_s > 0) last = add(fixed("recompute." + id, c.recompute_s, stream, kComputeTag), first);
      if (zero3) {
        std::vector<Bucket> units = buckets(c, run_.bucket_bytes, true);
        for (auto u = units.rbegin(); u != units.rend(); ++u) {
          const OpId gather = collective("bwd_allgather." + id, CollectiveOp::allgather, u->params * weight_bytes, s);
          double t = 0;
          for (std::size_t i = u->first; i < u->last; ++i) t += costs_[i].backward_s / plan_.layout.cp;
          last = add(fixed("bwd." + id, t, stream, kComputeTag), first);
          plan_.graph.add_dependency(gather, last);
          const OpId scatter = collective("grad_reduce_scatter." + id, CollectiveOp::reducescatter, u->params * grad_bytes, s);
          plan_.graph.add_dependency(last, scatter);
          stage_reductions[s].push_back(scatter);
        }
      } else if (final_backward && data_parallel && run_.overlap_gradient_reduce) {
        // DDP, and Megatron-Core's --overlap-grad-reduce: gradients are reduced bucket by bucket while the
        // rest of the last microbatch's backward runs (with pipelining, Megatron's schedules enable grad
        // sync for each chunk's last microbatch only: schedules.py, enable_grad_sync).
        std::vector<Bucket> bs = buckets(c, run_.bucket_bytes, false);
        const CollectiveOp op = run_.zero >= 1 ? CollectiveOp::reducescatter : CollectiveOp::allreduce;
        for (auto b = bs.rbegin(); b != bs.rend(); ++b) {
          double t = 0;
          for (std::size_t i = b->first; i < b->last; ++i) t += costs_[i].backward_s / plan_.layout.cp;
          last = add(fixed("bwd." + id, t, stream, kComputeTag), first);
          if (b->params <= 0) continue;
          const OpId reduce = collective("grad_bucket." + std::to_string(stage_reductions[s].size()), op,
                                         b->params * grad_bytes, s);
          plan_.graph.add_dependency(last, reduce);
          stage_reductions[s].push_back(reduce);
        }
      } else {
        last = add(fixed("bwd.stage" + id, c.backward_s, stream, kComputeTag), first);
      }
      if (c.tp_backward_s > 0) last = add(fixed("bwd_tp_comm." + id, c.tp_backward_s, stream, kCommunicationTag), first);
      if (final_backward && data_parallel && !run_.overlap_gradient_reduce && c.params > 0) {
        // No overlap: each chunk's gradients are reduced over the data-parallel group after its last backward.
        const CollectiveOp op = run_.zero >= 1 ? CollectiveOp::reducescatter : CollectiveOp::allreduce;
        const OpId reduce = collective("grad_reduce.stage" + std::to_string(v), op, c.params * grad_bytes, s);
        plan_.graph.add_dependency(last, reduce);
        stage_reductions[s].push_back(reduce);
      }
      b_first[v][pass.microbatch] = first, b_last[v][pass.microbatch] = last;
    }
  }

  // Activations forward and gradients backward between consecutive virtual stages.
  const std::vector<double> transfer = p2p_seconds();
  for (int v = 0; v + 1 < V; ++v) {
    const double t = transfer[v];
    for (int mb = 0; mb < m; ++mb) {
      const std::string id = std::to_string(v) + ".mb" + std::to_string(mb);
      const OpId send = fixed("send_activations." + id, t, plan_.p2p_stream(v, true), kCommunicationTag);
      plan_.graph.add_dependency(f_last[v][mb], send);
      plan_.graph.add_dependency(send, f_first[v + 1][mb]);
      const OpId back = fixed("send_gradients." + id, t, plan_.p2p_stream(v, false), kCommunicationTag);
      plan_.graph.add_dependency(b_last[v + 1][mb], back);
      plan_.graph.add_dependency(back, b_first[v][mb]);
    }
  }

  // The update, per pipeline stage, once its gradients are reduced; ZeRO-1/2 then gather the parameters.
  for (int s = 0; s < pp; ++s) {
    double params = 0, cast_weights = 0;
    std::int64_t tensors = 0;
    for (int c = 0; c < vp; ++c) {
      const StageCost& st = plan_.stages[c * pp + s];
      params += st.params, tensors += st.tensors, cast_weights += st.cast_weights;
    }
    const double update_s = optimizer_seconds(params, tensors) + weight_cast_seconds(cast_weights);
    const OpId update = fixed("optimizer.stage" + std::to_string(s), update_s,
                              plan_.compute_stream(s), kOptimizerTag);
    for (OpId r : stage_reductions[s]) plan_.graph.add_dependency(r, update);
    if (data_parallel && (run_.zero == 1 || run_.zero == 2) && !gather_in_forward && params > 0) {
      const OpId gather = collective("param_allgather.stage" + std::to_string(s), CollectiveOp::allgather,
                                     params * weight_bytes, s);
      plan_.graph.add_dependency(update, gather);
    }
  }
  plan_.graph.finalize();
}

}  // namespace hpcsim::training_detail
