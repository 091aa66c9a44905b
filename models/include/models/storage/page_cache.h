#pragma once
// A node's page cache under a training job's reads: every epoch reshuffles the dataset's samples over the
// nodes, each node reading its share once in a random order, and the cache keeps the most recently used
// pages. What share of a node's reads does a later epoch find in its cache?
namespace hpcsim {

// The steady-state share (0..1) of one node's sample reads served from its page cache of `cache_bytes` when
// each epoch hands every one of `nodes` nodes a random 1/nodes of a `dataset_bytes` dataset in random order
// and the cache evicts the least recently used pages. 1 when the dataset fits; 0 for an empty cache. On one
// node it is c + (1 - c) ln(1 - c) for c = cache / dataset (0.15 at half the dataset: a reshuffled epoch
// reads the samples the previous one read first only after the cache has turned over); with many nodes it
// approaches c (each node's reads come close to uniform draws). Throws std::invalid_argument for nodes < 1
// or negative sizes.
double page_cache_hit_ratio(double cache_bytes, double dataset_bytes, int nodes);

}  // namespace hpcsim
