#pragma once
// The bundled catalogues as C++ data, generated at build time from data/gpus.json and data/models.json by
// gpuadvise_catalog_gen (src/gen/): the same values parse_gpu_catalog and parse_model_catalog give (a test
// checks it), without parsing JSON at every start.
#include <optional>
#include <string_view>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/gpu.hpp"

namespace gpuadvise {

const GpuCatalog& bundled_gpus();
// Whether a GPU's provenance is built: its sources per field, uncertain fields, notes and the node's source.
// Only `gpus ID` prints them; the other commands leave them out (a third of the catalogue's memory, and memory
// first touched is most of a short run's cost: docs/performance.md).
enum class Provenance { kept, left_out };
// A fresh copy to change (prices, the user catalogue), built directly rather than copied from bundled_gpus().
GpuCatalog make_bundled_gpus(Provenance provenance = Provenance::kept);
const ModelCatalog& bundled_models();
// One preset by its exact id, built alone (the whole catalogue is 156 presets); nothing when there is none.
std::optional<ModelSpec> bundled_model(std::string_view id);

}  // namespace gpuadvise
