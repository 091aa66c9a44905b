#include "workloads/serving/front_end_spec.h"

#include "configs/units.h"

namespace hpcsim {

const Schema& front_end_spec_schema() {
  static const Schema schema = Schema::map({
      extends_field(),
      required("threads", Schema::integer().at_least(1), "threads that receive and parse requests"),
      required("per_request", Schema::quantity(Dimension::time).at_least(0),
               "a thread's time per request whatever its size (the request's fixed part: headers, parsing, "
               "scheduling, the response)"),
      required("receive_bandwidth", Schema::quantity(Dimension::bandwidth).positive(),
               "request bytes one thread receives and parses per second (client send, loopback, server parse)"),
      required("compute_input_bandwidth", Schema::quantity(Dimension::bandwidth).positive(),
               "request bytes per second the backend moves into the model's GPU input before a batch runs "
               "(gathering the batch from the receive buffers and copying it to the device)"),
      required("compute_output_per_request", Schema::quantity(Dimension::time).at_least(0),
               "the backend's time per request after its batch runs, on the batch's worker (each response's "
               "output buffer, the copy into it, the response sent)"),
  });
  return schema;
}

FrontEndSpec parse_front_end_spec(const ConfigNode& node, std::string name) {
  front_end_spec_schema().validate(node);
  FrontEndSpec f;
  f.name = std::move(name);
  f.threads = static_cast<int>(node.get_int("threads"));
  f.per_request_s = node.get_quantity("per_request", Dimension::time);
  f.receive_bandwidth = node.get_quantity("receive_bandwidth", Dimension::bandwidth);
  f.compute_input_bandwidth = node.get_quantity("compute_input_bandwidth", Dimension::bandwidth);
  f.compute_output_per_request_s = node.get_quantity("compute_output_per_request", Dimension::time);
  return f;
}

FrontEndSpec load_front_end_spec(const SpecCatalog& catalog, const ConfigNode& name_node) {
  return parse_front_end_spec(catalog.load("frontends", name_node, "serving front end"), name_node.as_string());
}

}  // namespace hpcsim
