#pragma once
// A `kind: serve` scenario (hpcsim serve, docs/serving.md): one replica's instance and model
// (workloads/inference/), the request stream and batching policy (`serving:`), and optionally a published
// measurement (`measured:`, validation cases). It is read here in one place so that `hpcsim serve`,
// `hpcsim run` and `hpcsim validate` read it alike.
#include <optional>
#include <string>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "configs/schema.h"
#include "workloads/inference/inference_setup.h"
#include "workloads/measured.h"
#include "workloads/serving/serving_config.h"
#include "workloads/serving/llm/llm_serving_keys.h"
#include "workloads/serving/serving_engine.h"

namespace hpcsim {

struct ServeScenario {
  std::string name;
  InferenceSetup setup;
  ServingConfig serving;
  // An LLM endpoint (workload.output_len given): token-level continuous batching (workloads/serving/llm/)
  // instead of the request-level engine; its engine and KV-cache keys from `serving:`.
  bool llm = false;
  LlmServingKeys llm_keys;
  std::optional<Measurement> measured;
};

// The whole file: kind, name, cluster, workload, serving, parallelism, measured.
const Schema& serve_scenario_schema();

// Reads and checks a serve scenario (ConfigError at file:line:column). serving.max_batch beyond the batch
// the replica's memory holds is an error at that key, with the largest batch that fits.
ServeScenario parse_serve_scenario(const ConfigNode& root, const SpecCatalog& catalog, const std::string& default_name);

// One replica worker's time for a batch: the inference cost model of the scenario's setup.
BatchServiceTime replica_service_time(const ServeScenario& scenario);

}  // namespace hpcsim
