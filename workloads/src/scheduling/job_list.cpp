#include "workloads/scheduling/job_list.h"

#include <algorithm>
#include <optional>
#include <string>

#include "configs/config_error.h"
#include "configs/schema.h"
#include "configs/units.h"
#include "workloads/scheduling/training_job.h"

namespace hpcsim {

const Schema& job_list_schema() {
  static const Schema time = Schema::quantity(Dimension::time, "s");
  static const Schema schema = Schema::map({
      optional("partitions", Schema::list(Schema::map({
                                 required("name", Schema::string(), "the partition's name, unique"),
                                 required("nodes", Schema::integer().at_least(1),
                                          "nodes it takes, the next ones from node 0 up (partitions do not overlap)"),
                                 optional("max_time", time.positive(), "longest wall-time limit a job may ask for",
                                          "no limit"),
                                 optional("max_nodes", Schema::integer().at_least(1), "most nodes one job may ask for",
                                          "the partition's size"),
                                 optional("node", Schema::string(),
                                          "its nodes' type, a name in configs/nodes (needs --cluster): their GPUs, host "
                                          "memory and training speed",
                                          "the cluster's node"),
                             })).non_empty(),
               "partitions with their own nodes and limits", "one partition `all` of every node"),
      optional("qos", Schema::list(Schema::map({
                          required("name", Schema::string(), "the QoS level's name"),
                          optional("priority", Schema::number().at_least(0),
                                   "weight in the priority's QoS factor (divided by the largest level's)", "0"),
                          optional("preempt", Schema::list(Schema::string()),
                                   "levels whose running jobs a waiting job of this level may stop (priority policy)",
                                   "none"),
                      })).non_empty(),
               "QoS levels", "one level `normal`"),
      optional("preempt_mode", Schema::one_of({"requeue", "cancel"}),
               "what preemption does to a job: back to the queue to run again from the start, or ended", "requeue"),
      optional("accounts", Schema::list(Schema::map({
                               required("name", Schema::string(), "the account's name"),
                               optional("shares", Schema::number().positive(), "its fair-share shares", "1"),
                           })).non_empty(),
               "accounts for fair share; with a table, an account not in it is an error",
               "every account a job names, with one share"),
      optional("priority", Schema::map({
                               optional("age", Schema::number().at_least(0), "weight of waiting time (age / age_max, at most 1)",
                                        "1000"),
                               optional("age_max", time.positive(), "waiting time at which the age factor is full", "7 d"),
                               optional("size", Schema::number().at_least(0), "weight of nodes / partition nodes", "1000"),
                               optional("fairshare", Schema::number().at_least(0),
                                        "weight of 2^(-usage share / shares share)", "10000"),
                               optional("qos", Schema::number().at_least(0), "weight of qos priority / largest qos priority",
                                        "1000"),
                               optional("half_life", time.positive(), "half-life of an account's recorded usage", "7 d"),
                           }),
               "weights of the multifactor priority (SLURM's priority/multifactor)", "the defaults below"),
      required("jobs", Schema::list(Schema::map({
                           optional("id", Schema::integer().wide().at_least(0), "the job's id", "its position in the list, from 1"),
                           required("submit", time.at_least(0), "submit time on the list's own clock"),
                           optional("nodes", Schema::integer().at_least(1), "whole nodes it needs at once",
                                    "none: give nodes or gpus, one of them"),
                           optional("gpus", Schema::integer().at_least(1),
                                    "GPUs it needs, as ceil(gpus / GPUs per node of its partition) whole nodes; not for training jobs",
                                    "none: give nodes or gpus, one of them"),
                           optional("memory", Schema::quantity(Dimension::bytes, "B").positive(),
                                    "host memory per node; more than a node has is refused", "any"),
                           optional("run", time.positive(), "how long it runs once started",
                                    "none: give run or training, one of them"),
                           optional("training", training_job_schema(),
                                    "what it trains: its run time is hpcsim's prediction on the nodes it gets",
                                    "none: give run or training, one of them"),
                           optional("time_limit", time.positive(), "wall-time limit: a job running longer is killed at it",
                                    "the run time; a training job is planned at its prediction and never killed"),
                           optional("partition", Schema::string(), "a name in the partitions table", "the first partition"),
                           optional("account", Schema::string(), "the account charged for fair share",
                                    "the accounts table's first, else `default`"),
                           optional("qos", Schema::string(), "a level in the qos table", "`normal`, else the table's first"),
                           optional("priority", Schema::number(), "added to the multifactor priority as is", "0"),
                       })).non_empty(),
               "the jobs, in any order (they queue by submit time, then id)"),
  });
  return schema;
}

namespace {

// The index of `name` in a table, or a ConfigError at the value naming what the table holds.
template <typename Row>
int index_of(const std::vector<Row>& table, const ConfigNode& value, const std::string& what) {
  const std::string name = value.as_string();
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].name == name) return static_cast<int>(i);
  }
  std::string known;
  for (const Row& row : table) known += (known.empty() ? "" : ", ") + row.name;
  throw ConfigError(value.loc(), "unknown " + what + " '" + name + "' (known: " + known + ")");
}

}  // namespace

JobList parse_job_list(const ConfigNode& root) {
  job_list_schema().validate(root);
  JobList list;
  if (const ConfigNode* partitions = root.find("partitions")) {
    list.partitions_loc = partitions->loc();
    int first = 0;
    for (const ConfigNode& p : partitions->items()) {
      Partition partition;
      partition.name = p.get_string("name");
      if (std::any_of(list.partitions.begin(), list.partitions.end(), [&](const Partition& q) { return q.name == partition.name; })) {
        throw ConfigError(p.at("name").loc(), "partition '" + partition.name + "' is listed twice");
      }
      partition.first_node = first;
      partition.nodes = static_cast<int>(p.get_int("nodes"));
      if (p.has("max_time")) partition.max_time_s = p.get_quantity("max_time", Dimension::time, "s");
      partition.max_nodes = static_cast<int>(p.get_int_or("max_nodes", 0));
      first += partition.nodes;
      list.partitions.push_back(partition);
      list.partition_nodes.push_back(p.has("node") ? std::optional<ConfigNode>(p.at("node")) : std::nullopt);
    }
  }
  if (const ConfigNode* qos = root.find("qos")) {
    for (const ConfigNode& q : qos->items()) list.qos.push_back(QosLevel{q.get_string("name"), q.get_number_or("priority", 0), {}});
    for (std::size_t i = 0; i < list.qos.size(); ++i) {
      if (const ConfigNode* preempt = qos->items()[i].find("preempt")) {
        for (const ConfigNode& name : preempt->items()) list.qos[i].preempts.push_back(index_of(list.qos, name, "QoS"));
      }
    }
  }
  if (root.get_string_or("preempt_mode", "requeue") == "cancel") list.preempt_mode = PreemptMode::cancel;
  const bool accounts_given = root.has("accounts");
  if (accounts_given) {
    for (const ConfigNode& a : root.at("accounts").items()) list.accounts.push_back(Account{a.get_string("name"), a.get_number_or("shares", 1)});
  }
  if (const ConfigNode* w = root.find("priority")) {
    PriorityWeights& weights = list.weights;
    weights.age = w->get_number_or("age", weights.age);
    weights.age_max_s = w->get_quantity_or("age_max", Dimension::time, weights.age_max_s, "s");
    weights.size = w->get_number_or("size", weights.size);
    weights.fairshare = w->get_number_or("fairshare", weights.fairshare);
    weights.qos = w->get_number_or("qos", weights.qos);
    weights.usage_half_life_s = w->get_quantity_or("half_life", Dimension::time, weights.usage_half_life_s, "s");
  }
  const std::vector<ConfigNode>& entries = root.at("jobs").items();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const ConfigNode& j = entries[i];
    BatchJob job;
    job.id = j.get_int_or("id", static_cast<std::int64_t>(i) + 1);
    job.submit_s = j.get_quantity("submit", Dimension::time, "s");
    if (j.has("nodes") == j.has("gpus")) throw ConfigError(j.loc(), "a job asks for nodes or for gpus (one of them)");
    job.nodes = static_cast<int>(j.get_int_or("nodes", 1));
    job.gpus = static_cast<int>(j.get_int_or("gpus", 0));
    job.memory_bytes = j.get_quantity_or("memory", Dimension::bytes, 0, "B");
    if (j.has("run") == j.has("training")) {
      throw ConfigError(j.loc(), "a job gives its run time (run) or what it trains (training), one of them");
    }
    if (j.has("training")) {
      if (j.has("gpus")) throw ConfigError(j.at("gpus").loc(), "a training job asks for nodes (its GPUs follow the cluster)");
      job.kind = static_cast<int>(list.training.size());
      list.training.push_back(parse_training_job(j.at("training"), job.nodes));
    } else {
      job.run_s = j.get_quantity("run", Dimension::time, "s");
    }
    job.estimate_s = j.has("time_limit") ? j.get_quantity("time_limit", Dimension::time, "s") : job.run_s;
    job.estimate_only = !j.has("time_limit") && job.kind >= 0;
    if (const ConfigNode* p = j.find("partition")) {
      if (list.partitions.empty()) throw ConfigError(p->loc(), "unknown partition '" + p->as_string() + "': the list has no partitions table");
      job.partition = index_of(list.partitions, *p, "partition");
    }
    // A job's account: as named, else the table's first, else "default".
    const ConfigNode account = j.has("account") ? j.at("account")
                               : ConfigNode::make_scalar(accounts_given ? list.accounts.front().name : "default", j.loc());
    if (!accounts_given && std::none_of(list.accounts.begin(), list.accounts.end(),
                                        [&](const Account& x) { return x.name == account.as_string(); })) {
      list.accounts.push_back(Account{account.as_string(), 1});
    }
    job.account = index_of(list.accounts, account, "account");
    if (const ConfigNode* q = j.find("qos")) {
      if (list.qos.empty()) list.qos.push_back(QosLevel{});
      job.qos = index_of(list.qos, *q, "QoS");
    } else if (!list.qos.empty()) {
      const auto normal = std::find_if(list.qos.begin(), list.qos.end(), [](const QosLevel& q) { return q.name == "normal"; });
      job.qos = normal == list.qos.end() ? 0 : static_cast<int>(normal - list.qos.begin());
    }
    job.priority = j.get_number_or("priority", 0);
    list.jobs.push_back(job);
  }
  std::stable_sort(list.jobs.begin(), list.jobs.end(), [](const BatchJob& a, const BatchJob& b) {
    return a.submit_s != b.submit_s ? a.submit_s < b.submit_s : a.id < b.id;
  });
  return list;
}

std::string fit_to_nodes(BatchJob& job, const MachineNodes& machine) {
  if (job.gpus > 0) {
    if (machine.gpus_per_node <= 0) {
      return machine.node.empty() ? "asks for GPUs; give the machine as a cluster with GPUs (--cluster)"
                                  : "asks for GPUs; a " + machine.node + " has none";
    }
    job.nodes = (job.gpus + machine.gpus_per_node - 1) / machine.gpus_per_node;
  }
  if (job.memory_bytes > 0 && machine.memory_bytes > 0 && job.memory_bytes > machine.memory_bytes) {
    return "asks for " + format_quantity(job.memory_bytes, Dimension::bytes) + " per node; a node has " +
           format_quantity(machine.memory_bytes, Dimension::bytes);
  }
  return {};
}

QueueSetup queue_setup(const JobList& list, int nodes, std::vector<int> node_leaf) {
  QueueSetup setup;
  setup.nodes = nodes;
  setup.node_leaf = std::move(node_leaf);
  setup.partitions = list.partitions;
  int used = 0;
  for (const Partition& p : list.partitions) used += p.nodes;
  if (used > nodes) {
    throw ConfigError(list.partitions_loc, "the partitions take " + std::to_string(used) + " nodes; the machine has " +
                                               std::to_string(nodes));
  }
  setup.qos = list.qos;
  setup.accounts = list.accounts;
  setup.weights = list.weights;
  setup.preempt_mode = list.preempt_mode;
  return setup;
}

}  // namespace hpcsim
