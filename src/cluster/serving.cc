#include "cluster/serving.h"

#include <filesystem>

#include "cluster/cluster_config.h"
#include "cluster/session.h"
#include "common/error_codes.h"
#include "common/hash.h"

namespace omnigraph::cluster {

namespace {

Status NotServable(const std::string& code, const std::string& message) {
  return Status(ErrorCode::kClusterNotServable, code + ": " + message);
}

Result<StorageRoot> RootOf(const std::string& cluster) {
  std::error_code ec;
  if (!cluster.starts_with("s3://") &&
      std::filesystem::is_regular_file(std::filesystem::path(cluster) / kClusterConfigFile, ec)) {
    ValidateOutput config = ValidateClusterConfig(cluster);
    for (const auto& d : config.diagnostics) {
      // Only cluster.yaml itself matters here: the applied state, not the files, is what serves.
      if (d.severity == Severity::kError && IsConfigHeaderCode(d.code)) {
        return InvalidArgumentError("cluster.yaml of '" + cluster + "' is invalid: " + d.code + " " + d.path + ": " +
                                    d.message);
      }
    }
    return ResolveStorageRoot(cluster, config.storage);
  }
  std::string uri = cluster;
  if (uri.starts_with("file://")) uri = uri.substr(7);
  if (uri.starts_with("s3://")) return ResolveStorageRoot(".", uri);
  return ResolveStorageRoot(uri, std::nullopt);
}

}  // namespace

Result<ServingSnapshot> ReadServingSnapshot(const std::string& cluster) {
  OG_ASSIGN_OR_RETURN(StorageRoot root, RootOf(cluster));
  auto ledger = Ledger::Open(root, /*create=*/false);
  if (!ledger.ok() && ledger.status().category() == StatusCode::kNotFound) {
    return NotServable("cluster_state_missing", "no cluster state at '" + root.display +
                                                    "'; run `omnigraph cluster import`, then `cluster apply`");
  }
  if (!ledger.ok()) return ledger.status();
  OG_ASSIGN_OR_RETURN(Ledger::StateRead read, ledger->ReadState());
  if (!read.state) {
    return NotServable("cluster_state_missing", "no cluster state at '" + root.display +
                                                    "'; run `omnigraph cluster import`, then `cluster apply`");
  }
  ServingSnapshot snap;
  snap.root = root;
  snap.revision = read.state->revision;
  for (const auto& [address, res] : read.state->resources) {
    if (address.starts_with("graph.")) {
      snap.graphs.push_back({GraphOf(address), root.GraphUri(GraphOf(address))});
      continue;
    }
    const std::string key = Ledger::PayloadKey(address, res.digest);
    if (key.empty()) continue;
    auto bytes = ledger->store().Get(key);
    if (!bytes.ok() && bytes.status().category() == StatusCode::kNotFound) {
      return NotServable("catalog_payload_missing", "the catalog object of " + address + " (" + root.display + "/" +
                                                        key +
                                                        ") is missing; run `cluster refresh`, then `cluster apply`");
    }
    if (!bytes.ok()) return bytes.status();
    if (Sha256Hex(*bytes) != res.digest) {
      return NotServable("catalog_payload_digest_mismatch",
                         "the catalog object of " + address + " (" + root.display + "/" + key +
                             ") does not hold its digest; run `cluster refresh`, then `cluster apply`");
    }
    if (address.starts_with("query.")) {
      const std::string rest = address.substr(6);
      const size_t dot = rest.find('.');
      snap.queries.push_back({rest.substr(0, dot), rest.substr(dot + 1), std::move(*bytes)});
    } else {
      if (res.applies_to.empty()) {
        return NotServable("policy_bindings_missing",
                           address + " records no bindings (applies_to); re-run `cluster apply`");
      }
      snap.policies.push_back({address.substr(7), std::move(*bytes), res.applies_to});
    }
  }
  return snap;
}

Result<ServingGraph> SelectServingGraph(const ServingSnapshot& snapshot, const std::string& graph_id) {
  std::string ids;
  for (const auto& g : snapshot.graphs) {
    if (g.id == graph_id || (graph_id.empty() && snapshot.graphs.size() == 1)) return g;
    ids += (ids.empty() ? "" : ", ") + g.id;
  }
  if (graph_id.empty()) {
    return InvalidArgumentError("cluster '" + snapshot.root.display + "' has " +
                                std::to_string(snapshot.graphs.size()) + " applied graphs ([" + ids +
                                "]); pass --graph ID to select one");
  }
  return NotFoundError("graph `" + graph_id + "` is not applied in cluster '" + snapshot.root.display +
                       "' (applied: [" + ids + "])");
}

}  // namespace omnigraph::cluster
