#include "gan_kernels.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace hpcsim::training_detail {

namespace {

constexpr double kF32 = 4;

// One fp32 elementwise pass: `elements` outputs, each reading `reads` values (unique_fraction: how much
// of what is read is distinct, for gathers and filters that re-read neighbours from cache).
Kernel pass(const std::string& name, double elements, double flops, int reads, double unique_fraction = 1,
            std::int64_t count = 1) {
  std::vector<ElementStream> streams;
  for (int i = 0; i < reads; ++i) streams.push_back({kF32, false, unique_fraction});
  streams.push_back({kF32, true});
  Kernel k = elementwise_kernel(name, std::max(1.0, elements), flops, streams);
  k.count = count;
  return k;
}

// augment.py draws each transform's parameters per sample on [batch] tensors: rand, scale, floor/exp2,
// rand, compare, where, the matrix constructor's element ops and stack, and one 3x3/4x4 bmm into the
// running matrix: about 10 launches each for the 8 geometric (xflip, rotate90, xint, scale, pre-rotate,
// aniso, post-rotate, xfrac) and 5 colour (brightness, contrast, lumaflip, hue, saturation) transforms,
// plus ~12 for the padding margins (corner transform, max, clamp, ceil, the copy to the host).
constexpr std::int64_t kParameterLaunches = 13 * 10 + 12;
// The sym6 wavelet (12 taps) of the geometric up/downsampling, applied separably (one pass per axis);
// zero insertion halves the taps that touch data when upsampling.
constexpr double kGeomTaps = 12;
// A batch almost always holds a sample rotated near 45 degrees once ADA's p exceeds ~0.1 (two rotation
// draws of probability ~p/2 per sample), so the reflect padding grows each side by (sqrt(2) - 1) / 2 of
// the image: the padded image has twice the pixels.
constexpr double kPaddedArea = 2;

}  // namespace

std::int64_t block_resolution(const std::string& name) {
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find('.', start), name.size());
    if (end - start > 1 && name[start] == 'b') {
      bool digits = true;
      for (std::size_t i = start + 1; i < end; ++i) digits &= std::isdigit(static_cast<unsigned char>(name[i])) != 0;
      if (digits) return std::stoll(name.substr(start + 1, end - start - 1));
    }
    start = end + 1;
  }
  return 0;
}

bool block_in_fp16(std::int64_t res, std::int64_t image_res, int fp16_resolutions) {
  if (fp16_resolutions <= 0 || res <= 0) return false;
  const int log2_image = static_cast<int>(std::lround(std::log2(static_cast<double>(image_res))));
  const std::int64_t threshold = std::max<std::int64_t>(std::int64_t{1} << std::max(0, log2_image + 1 - fp16_resolutions), 8);
  return res >= threshold;
}

std::vector<Kernel> augment_forward(std::int64_t batch, std::int64_t channels, std::int64_t res) {
  const double image = static_cast<double>(batch * channels * res * res);
  const double padded = kPaddedArea * image;
  const double sampled = image * 4;  // grid_sample's output: (res + 2 * 3) * 2 per side, ~4x the image
  const double pixels = sampled / static_cast<double>(channels);
  return {
      pass("augment_parameters", static_cast<double>(batch) * 16, 1, 1, 1, kParameterLaunches),
      pass("augment_pad_reflect", padded, 0, 1, 1 / kPaddedArea),
      pass("augment_upsample_x", 2 * padded, kGeomTaps, 1, 0.5),     // upfirdn2d, up 2 along x
      pass("augment_upsample_y", 4 * padded, kGeomTaps, 1, 0.5),     // then along y
      pass("augment_affine_grid", 2 * pixels, 6, 0),                 // sampling coordinates
      pass("augment_grid_sample", sampled, 10, 2, 4 * padded / sampled / 2),  // bilinear gather
      pass("augment_downsample_x", sampled / 2, 2 * kGeomTaps, 1, 1),
      pass("augment_downsample_y", image, 2 * kGeomTaps, 1, 1),
      pass("augment_color_bmm", image, 6, 1),                        // C[:, :3, :3] @ images
      pass("augment_color_offset", image, 1, 2),                     // + C[:, :3, 3:]
  };
}

std::vector<Kernel> augment_backward(std::int64_t batch, std::int64_t channels, std::int64_t res) {
  const double image = static_cast<double>(batch * channels * res * res);
  const double padded = kPaddedArea * image;
  const double sampled = image * 4;
  return {
      pass("augment_color_bmm_grad", image, 6, 1),
      pass("augment_downsample_y_grad", sampled / 2, kGeomTaps, 1, 0.5),  // upfirdn2d transposed: up 2
      pass("augment_downsample_x_grad", sampled, kGeomTaps, 1, 0.5),
      pass("augment_grid_sample_grad_zero", 4 * padded, 0, 0),           // grad_input zero-filled
      pass("augment_grid_sample_grad", sampled, 12, 3, 1),                // scatter-add to 4 neighbours
      pass("augment_upsample_y_grad", 2 * padded, 2 * kGeomTaps, 1, 1),  // transposed: down 2
      pass("augment_upsample_x_grad", padded, 2 * kGeomTaps, 1, 1),
      pass("augment_pad_reflect_grad", image, 2, 1, 1),
  };
}

std::vector<Kernel> sanitize_gradients(double params, std::int64_t tensors) {
  if (params < 1 || tensors < 1) return {};
  const double per = params / static_cast<double>(tensors);
  // torch.clamp(grad.unsqueeze(0).nansum(0), min, max, out=grad): a nansum and a clamp per tensor.
  return {pass("grad_nansum", per, 1, 1, 1, tensors), pass("grad_clamp", per, 2, 1, 1, tensors)};
}

std::vector<Kernel> weight_average(double params, std::int64_t tensors, std::int64_t buffers) {
  if (params < 1 || tensors < 1) return {};
  const double per = params / static_cast<double>(tensors);
  std::vector<Kernel> k{pass("ema_lerp", per, 3, 2, 1, tensors), pass("ema_copy", per, 0, 1, 1, tensors)};
  if (buffers > 0) k.push_back(pass("ema_buffer_copy", 256, 0, 1, 1, buffers));
  return k;
}

}  // namespace hpcsim::training_detail
