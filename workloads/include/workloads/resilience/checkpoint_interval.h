#pragma once
// Optimal checkpoint intervals (compute time between checkpoints), all in seconds:
// - Young (CACM 17(9), 1974): sqrt(2 delta M), first order in delta / M.
// - Daly (FGCS 22(3), 2006, eq. 37): sqrt(2 delta M) (1 + sqrt(delta / 2M) / 3 + (delta / 2M) / 9) - delta for
//   delta < 2M, else M.
// - availability-optimal (Saxena et al., arXiv 2410.18124): delta + sqrt(2 (M + R) delta + delta^2).
// delta: the checkpoint's cost to the job (a synchronous write, or an asynchronous snapshot), M: the job's
// mean time between interruptions, R: the recovery time. The unit tests hold them to the published optima.

namespace hpcsim {

double young_interval(double checkpoint_s, double mtti_s);
double daly_interval(double checkpoint_s, double mtti_s);
double availability_optimal_interval(double checkpoint_s, double mtti_s, double recovery_s);

}  // namespace hpcsim
