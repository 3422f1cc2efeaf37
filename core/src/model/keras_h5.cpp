// model.weights.h5 of a .keras file, written and read with the HDF5 library in memory (its core
// driver, no file on disk): groups layers/<name>/vars holding datasets 0, 1, ... and a "name"
// attribute, as Keras 3's H5IOStore writes them.
#include <fmt/format.h>

#include <stdexcept>

#include "mirror/model/keras_file.h"
#include "mirror/util/error.h"

#ifdef MIRROR_WITH_HDF5
#include <hdf5.h>
#endif

namespace mirror {

#ifdef MIRROR_WITH_HDF5
namespace {
// One HDF5 identifier, closed by its own close function when it goes.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t), const std::string& what) : id_(id), close_(close) {
    if (id < 0) throw std::runtime_error("HDF5: cannot " + what);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { close_(id_); }
  operator hid_t() const { return id_; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

void check(herr_t status, const std::string& what) {
  if (status < 0) throw std::runtime_error("HDF5: cannot " + what);
}

Handle group(hid_t parent, const std::string& name) {
  return Handle(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                "create the group " + name);
}

// A UTF-8 string attribute, variable length, as h5py writes a Python str.
void string_attribute(hid_t on, const char* key, const std::string& value) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "copy a string type");
  check(H5Tset_size(type, H5T_VARIABLE), "size a string type");
  check(H5Tset_cset(type, H5T_CSET_UTF8), "make a string type UTF-8");
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "make a scalar space");
  Handle attribute(H5Acreate2(on, key, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, fmt::format("add {}", key));
  const char* text = value.c_str();
  check(H5Awrite(attribute, type, &text), fmt::format("write {}", key));
}

void float_dataset(hid_t in, const std::string& name, const NamedWeights& v) {
  std::vector<hsize_t> dims(v.shape.begin(), v.shape.end());
  Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose, "make a dataspace");
  Handle data(H5Dcreate2(in, name.c_str(), H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
              "create the dataset " + name);
  check(H5Dwrite(data, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.values.data()), "write " + name);
}
}  // namespace

std::string keras_weights_h5(const std::vector<KerasLayerWeights>& layers, const std::string& model_name) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors come back as exceptions, not printed stacks
  Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "make file access properties");
  check(H5Pset_fapl_core(access, 1 << 20, /*backing_store=*/0), "keep the file in memory");
  // The name only tells the core driver's files apart; nothing is written to it.
  static int files = 0;
  const std::string name = fmt::format("mirror-keras-weights-{}.h5", ++files);
  std::string image;
  {
    Handle file(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access), H5Fclose, "create the weights file");
    {
      Handle all(group(file, "layers"));
      for (const KerasLayerWeights& layer : layers) {
        const std::string leaf = layer.path.substr(layer.path.find('/') + 1);  // "layers/dense_1" -> "dense_1"
        Handle g(group(all, leaf));
        Handle vars(group(g, "vars"));
        string_attribute(vars, "name", layer.name);
        for (size_t i = 0; i < layer.vars.size(); ++i) float_dataset(vars, std::to_string(i), layer.vars[i]);
      }
      Handle root_vars(group(file, "vars"));
      string_attribute(root_vars, "name", model_name);
    }
    check(H5Fflush(file, H5F_SCOPE_GLOBAL), "flush the weights file");
    const ssize_t size = H5Fget_file_image(file, nullptr, 0);
    if (size < 0) throw std::runtime_error("HDF5: cannot size the weights file's image");
    image.resize(static_cast<size_t>(size));
    if (H5Fget_file_image(file, image.data(), image.size()) != size)
      throw std::runtime_error("HDF5: cannot read the weights file's image");
  }
  return image;
}

namespace {
// Whether `in` holds `name`. Only hard links are followed: a soft or external link in a file
// someone sent could point anywhere, another file on this machine included, so one is refused.
bool holds(hid_t in, const std::string& name, const std::string& where) {
  if (H5Lexists(in, name.c_str(), H5P_DEFAULT) <= 0) return false;
  H5L_info_t info;
  if (H5Lget_info(in, name.c_str(), &info, H5P_DEFAULT) < 0) throw std::runtime_error("HDF5: cannot look at " + where);
  if (info.type != H5L_TYPE_HARD)
    throw DataError(fmt::format("{} is {} link; links in a weights file someone sent are not followed", where,
                                info.type == H5L_TYPE_EXTERNAL ? "an external" : "a soft"));
  return true;
}

std::vector<std::string> member_names(hid_t group) {
  H5G_info_t info;
  check(H5Gget_info(group, &info), "list a group");
  std::vector<std::string> names;
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t n = H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (n < 0) throw std::runtime_error("HDF5: cannot name a group's member");
    std::string name(static_cast<size_t>(n) + 1, '\0');
    H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT);
    name.resize(static_cast<size_t>(n));
    names.push_back(std::move(name));
  }
  return names;
}

NamedWeights read_variable(hid_t vars, const std::string& name, const std::string& where, uint64_t& budget) {
  Handle data(H5Dopen2(vars, name.c_str(), H5P_DEFAULT), H5Dclose, "open " + where);
  Handle type(H5Dget_type(data), H5Tclose, "read the type of " + where);
  if (H5Tget_class(type) != H5T_FLOAT) throw DataError(where + " is not an array of floating-point numbers");
  Handle space(H5Dget_space(data), H5Sclose, "read the shape of " + where);
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank < 0 || rank > 8) throw DataError(fmt::format("{} has {} axes; a weight has at most 8", where, rank));
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  check(H5Sget_simple_extent_dims(space, dims.data(), nullptr), "read the shape of " + where);
  NamedWeights v{"", {}, {}};
  uint64_t n = 1;
  for (hsize_t d : dims) {
    if (d > 0 && n > budget / sizeof(float) / d) throw DataError(where + " is larger than a .keras file's weights may be");
    n *= d;
    v.shape.push_back(static_cast<int64_t>(d));
  }
  budget -= n * sizeof(float);
  v.values.resize(static_cast<size_t>(n));
  if (n > 0) check(H5Dread(data, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.values.data()), "read " + where);
  return v;
}
}  // namespace

std::vector<KerasLayerWeights> read_keras_weights_h5(const std::string& image, const std::string& what) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  std::vector<KerasLayerWeights> out;
  try {
    if (image.size() < 8 || image.compare(0, 8, "\x89HDF\r\n\x1a\n") != 0)
      throw DataError("it is not an HDF5 file");
    Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "make file access properties");
    check(H5Pset_fapl_core(access, 1 << 20, /*backing_store=*/0), "keep the file in memory");
    check(H5Pset_file_image(access, const_cast<char*>(image.data()), image.size()), "take the file's bytes");
    static int files = 0;
    const std::string name = fmt::format("mirror-keras-weights-read-{}.h5", ++files);
    Handle file(H5Fopen(name.c_str(), H5F_ACC_RDONLY, access), H5Fclose, "open it as HDF5");
    if (!holds(file, "layers", "layers")) throw DataError("it holds no layers group: it is not a Keras 3 weights file");
    Handle layers(H5Gopen2(file, "layers", H5P_DEFAULT), H5Gclose, "open layers");
    uint64_t budget = uint64_t{1} << 30;  // bytes of floats in all, as the member may hold
    for (const std::string& layer : member_names(layers)) {
      holds(layers, layer, "layers/" + layer);
      Handle g(H5Oopen(layers, layer.c_str(), H5P_DEFAULT), H5Oclose, "open layers/" + layer);
      if (H5Iget_type(g) != H5I_GROUP || !holds(g, "vars", "layers/" + layer + "/vars")) continue;
      Handle vars(H5Gopen2(g, "vars", H5P_DEFAULT), H5Gclose, "open layers/" + layer + "/vars");
      KerasLayerWeights weights{"layers/" + layer, "", {}};
      const std::vector<std::string> names = member_names(vars);
      for (size_t i = 0; i < names.size(); ++i) {
        const std::string where = fmt::format("layers/{}/vars/{}", layer, i);
        if (!holds(vars, std::to_string(i), where))
          throw DataError(fmt::format("layers/{}/vars holds {} members but no variable {}", layer, names.size(), i));
        weights.vars.push_back(read_variable(vars, std::to_string(i), where, budget));
      }
      out.push_back(std::move(weights));
    }
  } catch (const std::runtime_error& e) {
    throw DataError(fmt::format("{}: {}", what, e.what()));
  }
  return out;
}
#else
std::string keras_weights_h5(const std::vector<KerasLayerWeights>&, const std::string&) {
  throw ConfigError("this build writes no .keras files: it was built without HDF5 (Debian: libhdf5-dev; "
                    "scripts/setup.sh installs it)");
}

std::vector<KerasLayerWeights> read_keras_weights_h5(const std::string&, const std::string&) {
  throw ConfigError("this build reads no .keras weights: it was built without HDF5 (Debian: libhdf5-dev; "
                    "scripts/setup.sh installs it)");
}
#endif

}  // namespace mirror
