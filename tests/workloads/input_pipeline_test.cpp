// The training input pipeline: synthetic data costs nothing, a shared NFS server starves a 16-node job,
// a warm page cache on local NVMe stalls less (and a cache smaller than the dataset serves the share an LRU
// cache keeps under reshuffled epochs), few cores make decode the bottleneck; dataset specs parse
// and bad ones are errors at file:line:column.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <list>
#include <numeric>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "models/node/node_spec.h"
#include "models/storage/io500.h"
#include "models/storage/page_cache.h"
#include "models/storage/storage_spec.h"
#include "workloads/training/dataset_spec.h"
#include "workloads/training/input_pipeline.h"

using namespace hpcsim;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

ConfigNode name_node(const std::string& name) { return ConfigNode::make_scalar(name, SourceLoc{"test", 1, 1}); }

DatasetSpec dataset(const std::string& name) { return load_dataset_spec(catalog(), name_node(name)); }

StorageSpec storage(const std::string& name) {
  return parse_storage_spec(catalog().load("storage", name_node(name), "storage"), name, catalog());
}

NodeSpec node(const std::string& name) {
  return parse_node_spec(catalog().load("nodes", name_node(name), "node"), name, catalog());
}

std::string error_of(const std::string& text) {
  try {
    parse_dataset_spec(parse_config_text(text, "dataset.yaml"), "test");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

const std::string kOutput = "output:\n  elements: 10\n  dtype: uint8\n";

}  // namespace

TEST_CASE("every shipped dataset spec parses", "[input]") {
  const auto names = catalog().names("datasets");
  for (const std::string name : {"imagenet-1k", "synthetic", "wmt16-en-de", "wikipedia-bookcorpus", "ffhq", "mnist",
                                 "cifar10"})
    CHECK(std::find(names.begin(), names.end(), name) != names.end());
  for (const std::string& name : names) {
    INFO(name);
    const DatasetSpec d = dataset(name);
    CHECK(d.name == name);
    CHECK(d.output_bytes > 0);
    if (d.synthetic) continue;
    CHECK(d.samples > 0);
    CHECK(d.sample_bytes > 0);
    CHECK(d.decode_core_s >= 0);
    CHECK((d.layout == DatasetLayout::files) == (d.read_bytes == 0));
  }
  const DatasetSpec imagenet = dataset("imagenet-1k");
  CHECK(imagenet.samples == 1281167);
  CHECK(imagenet.output_bytes == 224 * 224 * 3);
  CHECK(imagenet.total_bytes() == Approx(140e9).epsilon(0.01));  // tensorpack: 140 GB of JPEGs
  CHECK(imagenet.gpu_decode_core_s.has_value());
  CHECK(dataset("synthetic").synthetic);
  CHECK(dataset("mnist").output_bytes == 784 * 4);
}

TEST_CASE("bad dataset specs are errors at file:line:column", "[input]") {
  CHECK_THAT(error_of("samples: 10\nsample_size: 1 KB\nlayout: file\ndecode_time: 1 ms\n" + kOutput),
             Catch::Contains("dataset.yaml:3:9:") && Catch::Contains("did you mean 'files'"));
  CHECK_THAT(error_of("samples: 0\nsample_size: 1 KB\nlayout: files\ndecode_time: 1 ms\n" + kOutput),
             Catch::Contains("dataset.yaml:1:10:"));
  CHECK_THAT(error_of("samples: 10\nsample_size: 1\nlayout: files\ndecode_time: 1 ms\n" + kOutput),
             Catch::Contains("dataset.yaml:2:14:"));
  CHECK_THAT(error_of("samples: 10\nsample_size: 1 KB\nlayout: files\ndecode_time: 1 ms\n"
                      "output:\n  elements: 10\n  dtype: float\n"),
             Catch::Contains("dataset.yaml:7:10:"));
  CHECK_THAT(error_of("samples: 10\nsample_size: 1 KB\nlayout: shards\ndecode_time: 1 ms\n" + kOutput),
             Catch::Contains("dataset.yaml:1:1:") && Catch::Contains("read_size"));
  CHECK_THAT(error_of("samples: 10\nsample_size: 1 KB\nlayout: files\nread_size: 1 MiB\ndecode_time: 1 ms\n" + kOutput),
             Catch::Contains("dataset.yaml:4:12:") && Catch::Contains("layout: shards"));
  CHECK_THAT(error_of("synthetic: true\ndecode_time: 1 ms\n" + kOutput),
             Catch::Contains("dataset.yaml:2:1:") && Catch::Contains("synthetic"));
  CHECK_THAT(error_of("samples: 10\nsample_size: 1 KB\nlayout: files\ndecode_tim: 1 ms\n" + kOutput),
             Catch::Contains("dataset.yaml:4:1:"));
  CHECK_THAT(error_of("samples: 10\nsample_size: 1 KB\nlayout: files\ndecode_time: 1 ms\n"),
             Catch::Contains("dataset.yaml:1:1:") && Catch::Contains("output"));
  // A second hardware thread can at most double a core's decode rate.
  CHECK_THAT(error_of("samples: 10\nsample_size: 1 KB\nlayout: files\ndecode_time: 1 ms\ndecode_smt_speedup: 2.5\n" + kOutput),
             Catch::Contains("dataset.yaml:5:21:"));
  CHECK_THAT(error_of("synthetic: true\ndecode_smt_speedup: 1.2\n" + kOutput),
             Catch::Contains("dataset.yaml:2:1:") && Catch::Contains("synthetic"));
  CHECK_THROWS_WITH(dataset("imagenet"), Catch::Contains("test:1:1: unknown dataset 'imagenet'") &&
                                             Catch::Contains("imagenet-1k"));
}

TEST_CASE("synthetic data never stalls the step", "[input]") {
  const InputPipelineResult r =
      simulate_input_pipeline(dataset("synthetic"), std::nullopt, node("dgx-a100-80gb"), 8, 16, 256, {});
  CHECK(r.seconds_per_batch == 0);
  CHECK(r.storage_s == 0);
  CHECK(r.decode_s == 0);
  CHECK(r.h2d_s == 0);
  CHECK(r.bottleneck == "none");
  CHECK(io_stall_s(r, 0.2) == 0);
  CHECK(io_stall_s(r, 0.0) == 0);
}

TEST_CASE("ImageNet from a shared NFS server starves 16 DGX A100 nodes: local NVMe with a warm cache stalls less",
          "[input]") {
  const DatasetSpec imagenet = dataset("imagenet-1k");
  const NodeSpec dgx = node("dgx-a100-80gb");
  const double step_s = 0.2;
  LoaderConfig loader;
  loader.workers_per_gpu = 8;
  const InputPipelineResult nfs = simulate_input_pipeline(imagenet, storage("nfs-2x25g"), dgx, 8, 16, 256, loader);
  // 32,768 images of 109 KB per step (3.6 GB) through one server on 2x 25 GbE (~6 GB/s): about 0.6 s.
  CHECK(nfs.bottleneck == "storage");
  CHECK(nfs.storage_limit == "server network");
  CHECK(nfs.storage_s == Approx(32768 * 109e3 / (2 * 25e9 / 8)).epsilon(0.15));
  CHECK(io_stall_s(nfs, step_s) > 0.2);
  CHECK(io_stall_s(nfs, step_s) == Approx(nfs.seconds_per_batch - step_s));
  CHECK_FALSE(nfs.from_page_cache);
  WARN("ImageNet, 16 DGX A100 x 8 GPUs x 256 from nfs-2x25g: storage " << nfs.storage_s << " s, decode "
       << nfs.decode_s << " s, h2d " << nfs.h2d_s << " s per batch; stall " << io_stall_s(nfs, step_s)
       << " s on a 0.2 s step");

  LoaderConfig warm = loader;
  warm.page_cache_warm = true;
  const InputPipelineResult cached = simulate_input_pipeline(imagenet, storage("nvme-p5500"), dgx, 8, 16, 256, warm);
  CHECK(cached.from_page_cache);  // 140 GB fits in half of 2 TiB
  CHECK(cached.storage_s < 0.01);
  CHECK(io_stall_s(cached, step_s) < io_stall_s(nfs, step_s));
  // With the page cache holding the data, the 8 workers' decode is what remains: 256 x decode_time / 8.
  CHECK(cached.bottleneck == "decode");
  CHECK(cached.decode_s == Approx(256 * imagenet.decode_core_s / 8));

  // A later epoch from NFS is served from the cache too; the cold local NVMe is per node and fast.
  const InputPipelineResult nfs_warm = simulate_input_pipeline(imagenet, storage("nfs-2x25g"), dgx, 8, 16, 256, warm);
  CHECK(nfs_warm.storage_s == cached.storage_s);
  const InputPipelineResult nvme = simulate_input_pipeline(imagenet, storage("nvme-p5500"), dgx, 8, 16, 256, loader);
  CHECK(nvme.storage_s < nfs.storage_s / 5);
  CHECK(nvme.storage_s > cached.storage_s);

  // A cache too small for the dataset serves part of the reads (5 % of 2 TiB is 110 GB, 79 % of ImageNet's
  // 140 GB): the server reads only the misses. On 16 nodes each node's reads are close to uniform draws, so
  // the share is close to the cache's share of the dataset; on one node a reshuffled epoch finds far less.
  LoaderConfig small = warm;
  small.page_cache_fraction = 0.05;
  const InputPipelineResult partial = simulate_input_pipeline(imagenet, storage("nfs-2x25g"), dgx, 8, 16, 256, small);
  const double share = 0.05 * dgx.host_memory_bytes / imagenet.total_bytes();
  CHECK_FALSE(partial.from_page_cache);
  CHECK(partial.page_cache_hit == Approx(page_cache_hit_ratio(0.05 * dgx.host_memory_bytes, imagenet.total_bytes(), 16)));
  CHECK(partial.page_cache_hit < share);
  CHECK(partial.page_cache_hit > share - 0.05);
  CHECK(partial.storage_s == Approx((1 - partial.page_cache_hit) * nfs.storage_s));
  CHECK(partial.storage_limit == nfs.storage_limit);
  const InputPipelineResult one_node = simulate_input_pipeline(imagenet, storage("nfs-2x25g"), dgx, 8, 1, 256, small);
  CHECK(one_node.page_cache_hit == Approx(share + (1 - share) * std::log(1 - share)));
  CHECK(one_node.page_cache_hit < partial.page_cache_hit - 0.2);
  // A cold epoch reads everything from the server.
  CHECK(nfs.page_cache_hit == 0);
  CHECK(cached.page_cache_hit == 1);
}

// A least-recently-used cache of `capacity` samples on each of `nodes` nodes, each epoch dealing a reshuffled
// dataset of `samples` to the nodes in turn: the share of the second half of the epochs' reads that hit.
static double simulated_lru_hits(int samples, int capacity, int nodes, int epochs) {
  std::mt19937_64 rng(7);
  std::vector<std::list<int>> order(nodes);
  std::vector<std::unordered_map<int, std::list<int>::iterator>> where(nodes);
  std::vector<int> perm(samples);
  std::iota(perm.begin(), perm.end(), 0);
  std::int64_t hits = 0, reads = 0;
  for (int e = 0; e < epochs; ++e) {
    std::shuffle(perm.begin(), perm.end(), rng);
    for (int i = 0; i < samples; ++i) {
      const int n = i % nodes;
      const int x = perm[i];
      const bool counted = e >= epochs / 2;
      reads += counted;
      auto it = where[n].find(x);
      if (it != where[n].end()) {
        hits += counted;
        order[n].erase(it->second);
      } else if (static_cast<int>(order[n].size()) == capacity) {
        where[n].erase(order[n].back());
        order[n].pop_back();
      }
      order[n].push_front(x);
      where[n][x] = order[n].begin();
    }
  }
  return static_cast<double>(hits) / static_cast<double>(reads);
}

TEST_CASE("a node's page cache under reshuffled epochs keeps what an LRU cache keeps", "[input][page-cache]") {
  // Against a simulated LRU cache (20,000 samples; its sampling error is about 0.005).
  for (const int nodes : {1, 4}) {
    for (const double share : {0.2, 0.5, 0.8}) {
      const double simulated = simulated_lru_hits(20000, static_cast<int>(share * 20000), nodes, nodes == 1 ? 8 : 24);
      const double model = page_cache_hit_ratio(share, 1.0, nodes);
      INFO("nodes " << nodes << ", cache " << share << " of the dataset: simulated " << simulated << ", model " << model);
      CHECK(model == Approx(simulated).margin(0.015));
    }
  }
  // One node: c + (1 - c) ln(1 - c); many nodes: c (each node's reads close to uniform draws).
  CHECK(page_cache_hit_ratio(0.5, 1.0, 1) == Approx(0.5 + 0.5 * std::log(0.5)));
  CHECK(page_cache_hit_ratio(0.5, 1.0, 4096) == Approx(0.5).margin(0.001));
  CHECK(page_cache_hit_ratio(2.0, 1.0, 3) == 1);
  CHECK(page_cache_hit_ratio(0.0, 1.0, 3) == 0);
  CHECK(page_cache_hit_ratio(0.999, 1.0, 100000) == Approx(0.999).margin(0.001));
  // Any node count at once (the first epochs' returns sum in closed form): two billion nodes.
  CHECK(page_cache_hit_ratio(0.9999, 1.0, 2000000000) == Approx(0.9999).margin(1e-6));
  for (int n = 1; n < 64; n *= 2) CHECK(page_cache_hit_ratio(0.3, 1.0, n) < page_cache_hit_ratio(0.3, 1.0, 2 * n));
  CHECK_THROWS_AS(page_cache_hit_ratio(0.5, 1.0, 0), std::invalid_argument);
  CHECK_THROWS_AS(page_cache_hit_ratio(-1.0, 1.0, 1), std::invalid_argument);
}

TEST_CASE("decode bounds the pipeline when the node has few cores", "[input]") {
  const DatasetSpec imagenet = dataset("imagenet-1k");
  NodeSpec few = node("dgx-a100-80gb");
  few.cpu.sockets = 1;
  few.cpu.cores_per_socket = 16;  // 2 cores per GPU
  few.cpu.threads_per_core = 1;
  LoaderConfig loader;
  loader.workers_per_gpu = 8;
  loader.page_cache_warm = true;
  const InputPipelineResult r = simulate_input_pipeline(imagenet, storage("nvme-p5500"), few, 8, 1, 256, loader);
  CHECK(r.decode_workers_per_gpu == 2);  // 8 workers share 2 cores
  CHECK(r.bottleneck == "decode");
  const double per_image = imagenet.decode_core_s;
  CHECK(r.decode_s == Approx(256 * per_image / 2));
  CHECK(io_stall_s(r, 0.2) == Approx(256 * per_image / 2 - 0.2));

  // Two hardware threads per core: 4 of the 8 workers run, paired on the 2 cores, which decode the
  // dataset's SMT speed-up (1.25 for ImageNet) times what one worker alone does.
  NodeSpec smt = few;
  smt.cpu.threads_per_core = 2;
  const InputPipelineResult t = simulate_input_pipeline(imagenet, storage("nvme-p5500"), smt, 8, 1, 256, loader);
  CHECK(t.decode_workers_per_gpu == 4);
  REQUIRE(imagenet.decode_smt_speedup == Approx(1.25));
  CHECK(t.decode_cores_per_gpu == Approx(2 * 1.25));
  CHECK(t.decode_s == Approx(r.decode_s / 1.25));
  // Three workers: one core to itself, one shared by two.
  LoaderConfig three = loader;
  three.workers_per_gpu = 3;
  CHECK(simulate_input_pipeline(imagenet, storage("nvme-p5500"), smt, 8, 1, 256, three).decode_cores_per_gpu ==
        Approx(1 + 1.25));
  // Workers within the cores get a core each, with or without SMT.
  LoaderConfig two = loader;
  two.workers_per_gpu = 2;
  CHECK(simulate_input_pipeline(imagenet, storage("nvme-p5500"), smt, 8, 1, 256, two).decode_s == Approx(r.decode_s));

  // GPU decode (DALI) leaves the host a small part of the work and copies the JPEGs instead of the pixels.
  LoaderConfig dali = loader;
  dali.gpu_decode = true;
  const InputPipelineResult g = simulate_input_pipeline(imagenet, storage("nvme-p5500"), few, 8, 1, 256, dali);
  CHECK(g.decode_s == Approx(r.decode_s * *imagenet.gpu_decode_core_s / imagenet.decode_core_s));
  CHECK(g.decode_s < r.decode_s / 5);
  CHECK(g.h2d_s < r.h2d_s);
  CHECK_THROWS_AS(simulate_input_pipeline(dataset("cifar10"), storage("nvme-p5500"), few, 8, 1, 256, dali),
                  std::invalid_argument);
}

TEST_CASE("host-to-device copy shares the PCIe switch uplink", "[input]") {
  const DatasetSpec ffhq = dataset("ffhq");
  const NodeSpec dgx = node("dgx-a100-80gb");
  LoaderConfig loader;
  loader.page_cache_warm = true;
  const InputPipelineResult one = simulate_input_pipeline(ffhq, std::nullopt, dgx, 1, 1, 32, loader);
  const InputPipelineResult two = simulate_input_pipeline(ffhq, std::nullopt, dgx, 2, 1, 32, loader);
  const double bytes = 32 * 3145728.0;
  const double link = dgx.pcie.link->payload_bandwidth(dgx.pcie.lanes);
  CHECK(one.h2d_s == Approx(dgx.pcie.link->software_latency_s + bytes / link));
  CHECK(two.h2d_s == Approx(dgx.pcie.link->software_latency_s + 2 * bytes / link));  // 2 GPUs per switch
  CHECK(link > 20e9);  // PCIe 4.0 x16
  CHECK(link < 32e9);
}

TEST_CASE("loading without workers is not overlapped with the step", "[input]") {
  LoaderConfig sync;
  sync.workers_per_gpu = 0;
  sync.page_cache_warm = true;
  const InputPipelineResult r =
      simulate_input_pipeline(dataset("cifar10"), std::nullopt, node("dgx-a100-80gb"), 8, 1, 128, sync);
  CHECK_FALSE(r.overlapped);
  CHECK(r.decode_workers_per_gpu == 1);
  CHECK(r.seconds_per_batch == Approx(r.storage_s + r.decode_s + r.h2d_s));
  CHECK(io_stall_s(r, 10.0) == r.seconds_per_batch);
  LoaderConfig ahead = sync;
  ahead.workers_per_gpu = 4;
  ahead.prefetch_batches = 0;
  CHECK(io_stall_s(simulate_input_pipeline(dataset("cifar10"), std::nullopt, node("dgx-a100-80gb"), 8, 1, 128, ahead),
                   10.0) > 0);
}

TEST_CASE("record shards are read in large requests", "[input]") {
  const DatasetSpec bert = dataset("wikipedia-bookcorpus");
  LoaderConfig loader;
  const InputPipelineResult r =
      simulate_input_pipeline(bert, storage("lustre-hdd"), node("dgx-a100-80gb"), 8, 4, 32, loader);
  CHECK(r.storage_s > 0);
  CHECK(r.storage_s < 0.05);  // 1 MiB of token ids per step
  CHECK(r.h2d_s > 0);
}

TEST_CASE("input pipeline arguments are checked", "[input]") {
  const DatasetSpec imagenet = dataset("imagenet-1k");
  const NodeSpec dgx = node("dgx-a100-80gb");
  const std::optional<StorageSpec> nfs = storage("nfs-2x25g");
  CHECK_THROWS_AS(simulate_input_pipeline(imagenet, nfs, dgx, 9, 1, 256, {}), std::invalid_argument);
  CHECK_THROWS_AS(simulate_input_pipeline(imagenet, nfs, dgx, 8, 0, 256, {}), std::invalid_argument);
  CHECK_THROWS_AS(simulate_input_pipeline(imagenet, nfs, dgx, 8, 1, 0, {}), std::invalid_argument);
  CHECK_THROWS_AS(simulate_input_pipeline(imagenet, std::nullopt, dgx, 8, 1, 256, {}), std::invalid_argument);
}

TEST_CASE("input pipeline results are deterministic", "[input]") {
  const DatasetSpec imagenet = dataset("imagenet-1k");
  const NodeSpec dgx = node("dgx-a100-80gb");
  const InputPipelineResult a = simulate_input_pipeline(imagenet, storage("lustre-flash"), dgx, 8, 4, 128, {});
  const InputPipelineResult b = simulate_input_pipeline(imagenet, storage("lustre-flash"), dgx, 8, 4, 128, {});
  CHECK(a.storage_s == b.storage_s);
  CHECK(a.storage_limit == b.storage_limit);
  CHECK(a.seconds_per_batch == b.seconds_per_batch);
}

namespace {

FileSystemSpec filesystem(const std::string& name) {
  return parse_filesystem_spec(catalog().load("filesystems", name_node(name), "file system"), name, catalog());
}

}  // namespace

TEST_CASE("ImageNet from a disk Lustre described as hardware is bound by its disks' positionings, flash by its ports",
          "[input]") {
  const DatasetSpec imagenet = dataset("imagenet-1k");
  const NodeSpec dgx = node("dgx-a100-80gb");
  LoaderConfig loader;
  loader.workers_per_gpu = 8;
  // 64 DGX A100 x 8 GPUs x 256 images: 131,072 files of ~110 KB per batch. Each lies within one 128 KiB chunk
  // of a RAID-6 8+2 stripe: one positioning of one disk, 12 servers x 150 disks x 170 IOPS = 306,000 files/s.
  const FileSystemSpec disks = filesystem("lustre-hdd-edr");
  const InputPipelineResult hdd = simulate_input_pipeline(imagenet, disks, dgx, 8, 64, 256, loader);
  CHECK(hdd.bottleneck == "storage");
  CHECK(hdd.storage_limit == "device IOPS");
  const double disk_ops = 12 * 150 * disks.data.device.read_iops;
  CHECK(hdd.storage_s == Approx(64 * 8 * 256 / disk_ops).epsilon(0.01));
  const auto use = [](const InputPipelineResult& r, const std::string& stage) {
    for (const auto& [name, u] : r.storage_use)
      if (name == stage) return u;
    return -1.0;
  };
  CHECK(use(hdd, "device IOPS") == Approx(1).epsilon(0.01));
  CHECK(use(hdd, "server ports") < 0.5);

  // The flash file system's 24 servers' ports (one Omni-Path port each) carry the bytes instead.
  const FileSystemSpec flash = filesystem("lustre-nvme-opa");
  const InputPipelineResult nvme = simulate_input_pipeline(imagenet, flash, dgx, 8, 64, 256, loader);
  CHECK(nvme.storage_limit == "server ports");
  CHECK(nvme.storage_s == Approx(64 * 8 * 256 * imagenet.sample_bytes / (24 * flash.server_port_bandwidth())).epsilon(0.02));
  CHECK(nvme.storage_s < hdd.storage_s / 5);
  // The decode stage does not depend on where the files come from.
  CHECK(nvme.decode_s == hdd.decode_s);
  CHECK(nvme.bottleneck == "decode");
}

TEST_CASE("shards on a file system stream through the client's RPC pipeline", "[input]") {
  const DatasetSpec bert = dataset("wikipedia-bookcorpus");
  LoaderConfig loader;
  const FileSystemSpec disks = filesystem("lustre-hdd-edr");
  const InputPipelineResult r = simulate_input_pipeline(bert, disks, node("dgx-a100-80gb"), 8, 4, 32, loader);
  const CheckpointResult stream = simulate_checkpoint(disks, {4, 4 * 8 * loader.workers_per_gpu}, 1073741824.0, IoOp::read);
  CHECK(r.storage_s == Approx(4 * 8 * 32 * bert.sample_bytes / stream.rate.rate).epsilon(1e-6));
  CHECK(r.storage_limit == stream.rate.bottleneck);
  // Synthetic data reads nothing, whatever the file system.
  const InputPipelineResult none = simulate_input_pipeline(dataset("synthetic"), disks, node("dgx-a100-80gb"), 8, 4, 32, loader);
  CHECK(none.storage_s == 0);
  CHECK(none.storage_use.empty());
}
