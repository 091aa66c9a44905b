#pragma once
// A cluster's failure model as data (configs/reliability/*.yaml): failure modes, each a component that
// fails at a constant rate (FIT: failures per 10^9 unit-hours) per unit of the job (a GPU, a node, a leaf
// switch, the job itself), with its blast radius (what the failure takes down) and whether the hardware it
// hits is replaced (the nodes leave the job until repaired) or the job restarts in place. Every rate carries
// its source; docs/resilience.md says which components the public data covers.
#include <string>
#include <vector>

#include "configs/config_node.h"
#include "configs/enum_names.h"
#include "configs/schema.h"
#include "configs/source_loc.h"

namespace hpcsim {

enum class FailureComponent { gpu, hbm, nvlink, nic_cable, network_switch, host, psu, software, filesystem, other };
inline constexpr EnumNames<FailureComponent, 10> kFailureComponentNames{{{
    {FailureComponent::gpu, "gpu"},
    {FailureComponent::hbm, "hbm"},
    {FailureComponent::nvlink, "nvlink"},
    {FailureComponent::nic_cable, "nic_cable"},
    {FailureComponent::network_switch, "switch"},
    {FailureComponent::host, "host"},
    {FailureComponent::psu, "psu"},
    {FailureComponent::software, "software"},
    {FailureComponent::filesystem, "filesystem"},
    {FailureComponent::other, "other"},
}}};

// What a rate counts per: each GPU, each node or each leaf switch of the job, or the job as a whole.
enum class FailureUnit { gpu, node, leaf, job };
inline constexpr EnumNames<FailureUnit, 4> kFailureUnitNames{{{
    {FailureUnit::gpu, "gpu"}, {FailureUnit::node, "node"}, {FailureUnit::leaf, "leaf"}, {FailureUnit::job, "job"}}}};

// What one failure takes out of the job: nothing but the run (job: every rank restarts on the same nodes),
// one node, or every node under one leaf switch.
enum class BlastRadius { job, node, leaf };
inline constexpr EnumNames<BlastRadius, 3> kBlastRadiusNames{{{
    {BlastRadius::job, "job"}, {BlastRadius::node, "node"}, {BlastRadius::leaf, "leaf"}}}};

struct FailureMode {
  std::string name;  // the key in the file: the cause in outputs
  FailureComponent component = FailureComponent::other;
  double fit = 0;    // failures per 10^9 unit-hours, > 0
  FailureUnit per = FailureUnit::gpu;
  BlastRadius blast_radius = BlastRadius::job;
  std::string source;
  SourceLoc loc;
};

struct ReliabilitySpec {
  std::string name;
  std::vector<FailureMode> modes;  // file order
};

const Schema& reliability_spec_schema();
// Validates and parses a reliability spec: a zero, negative or absurd rate, a blast radius wider than a leaf
// for a per-GPU rate, an empty list: ConfigErrors at the key.
ReliabilitySpec parse_reliability_spec(const ConfigNode& node, std::string name);

}  // namespace hpcsim
