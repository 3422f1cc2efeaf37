// model.weights.h5 of a .keras file, written with the HDF5 library into memory (its core driver,
// no file on disk): groups layers/<name>/vars holding datasets 0, 1, ... and a "name" attribute,
// as Keras 3's H5IOStore writes them.
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
#else
std::string keras_weights_h5(const std::vector<KerasLayerWeights>&, const std::string&) {
  throw ConfigError("this build writes no .keras files: it was built without HDF5 (Debian: libhdf5-dev; "
                    "scripts/setup.sh installs it)");
}
#endif

}  // namespace mirror
