#include "mirror/runs/tensorboard.h"

#include <boost/crc.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "mirror/util/error.h"
#include "mirror/util/untrusted_file.h"
#include "util/protobuf_wire.h"

namespace mirror {

namespace {
using wire::put_bytes_field;
using wire::put_le;

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Minimal protobuf reading for Event { wall_time=1, step=2, summary=5 { value=1 { tag=1, simple_value=2 } } }.
struct Reader {
  const std::string& s;
  size_t pos;
  size_t end;
  bool ok = true;
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && pos < end; shift += 7) {
      const auto b = static_cast<unsigned char>(s[pos++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    ok = false;
    return 0;
  }
  void skip(int wire) {
    if (wire == 0) varint();
    else if (wire == 1) pos += 8;
    else if (wire == 5) pos += 4;
    else if (wire == 2) pos += varint();
    else ok = false;
    if (pos > end) ok = false;
  }
};

// TensorProto { dtype=1, tensor_content=4, float_val=5, double_val=6 }: the first value of a
// float (DT_FLOAT = 1) or double (DT_DOUBLE = 2) tensor, from its packed or unpacked values or its
// raw content.
bool parse_tensor(const std::string& s, size_t pos, size_t end, float& value) {
  Reader r{s, pos, end};
  uint64_t dtype = 0;
  std::string content;
  bool found = false;
  while (r.ok && r.pos < r.end) {
    const uint64_t key = r.varint();
    const int field = static_cast<int>(key >> 3), wire = static_cast<int>(key & 7);
    if (field == 1 && wire == 0) {
      dtype = r.varint();
    } else if ((field == 4 || field == 5 || field == 6) && wire == 2) {
      const uint64_t n = r.varint();
      if (n > r.end - std::min(r.pos, r.end)) return false;
      if (field == 4) {
        content = s.substr(r.pos, n);
      } else if (!found && field == 5 && n >= 4) {  // packed floats
        std::memcpy(&value, s.data() + r.pos, 4);
        found = true;
      } else if (!found && field == 6 && n >= 8) {  // packed doubles
        double d;
        std::memcpy(&d, s.data() + r.pos, 8);
        value = static_cast<float>(d);
        found = true;
      }
      r.pos += n;
    } else if (field == 5 && wire == 5 && r.pos + 4 <= r.end && !found) {
      std::memcpy(&value, s.data() + r.pos, 4);
      r.pos += 4;
      found = true;
    } else if (field == 6 && wire == 1 && r.pos + 8 <= r.end && !found) {
      double d;
      std::memcpy(&d, s.data() + r.pos, 8);
      r.pos += 8;
      value = static_cast<float>(d);
      found = true;
    } else {
      r.skip(wire);
    }
  }
  if (found || !r.ok) return found && r.ok;
  if (dtype == 1 && content.size() >= 4) {
    std::memcpy(&value, content.data(), 4);
    return true;
  }
  if (dtype == 2 && content.size() >= 8) {
    double d;
    std::memcpy(&d, content.data(), 8);
    value = static_cast<float>(d);
    return true;
  }
  return false;
}

// Summary.Value { tag=1, simple_value=2, tensor=8 }.
void parse_value(const std::string& s, size_t pos, size_t end, ScalarPoint& p, bool& has_value) {
  Reader r{s, pos, end};
  while (r.ok && r.pos < r.end) {
    const uint64_t key = r.varint();
    const int field = static_cast<int>(key >> 3), wire = static_cast<int>(key & 7);
    if ((field == 1 || field == 8) && wire == 2) {
      const uint64_t n = r.varint();
      if (r.pos + n > r.end) return;
      if (field == 1) p.tag = s.substr(r.pos, n);
      else if (parse_tensor(s, r.pos, r.pos + n, p.value)) has_value = true;
      r.pos += n;
    } else if (field == 2 && wire == 5 && r.pos + 4 <= r.end) {
      std::memcpy(&p.value, s.data() + r.pos, 4);
      r.pos += 4;
      has_value = true;
    } else {
      r.skip(wire);
    }
  }
}

// An Event's bytes as one TFRecord: length, masked CRC of the length, data, masked CRC of the data.
std::string framed(const std::string& event) {
  std::string record;
  const uint64_t length = event.size();
  put_le(record, length);
  put_le(record, masked_crc32c(&length, sizeof length));
  record += event;
  put_le(record, masked_crc32c(event.data(), event.size()));
  return record;
}

// The start of every Event: wall_time=1, step=2.
std::string event_header(double wall_time, int64_t step) {
  std::string event;
  wire::put_double_field(event, 1, wall_time);
  wire::put_int_field(event, 2, step);
  return event;
}

// Event { wall_time=1, step=2, summary=5 { value=1 { <value> } } }.
std::string scalar_event(double wall_time, int64_t step, const std::string& value) {
  std::string event = event_header(wall_time, step);
  std::string summary;
  put_bytes_field(summary, 1, value);
  put_bytes_field(event, 5, summary);
  return event;
}
}  // namespace

uint32_t crc32c(const void* data, size_t size) {
  boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true> crc;
  crc.process_bytes(data, size);
  return crc.checksum();
}

uint32_t masked_crc32c(const void* data, size_t size) {
  const uint32_t crc = crc32c(data, size);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;  // TFRecord's masking
}

std::string tensorboard_record(double wall_time, int64_t step, const std::string& tag, float value) {
  if (tag.empty()) {  // Event { wall_time, step, file_version=3 }
    std::string event = event_header(wall_time, step);
    put_bytes_field(event, 3, "brain.Event:2");
    return framed(event);
  }
  std::string v;  // Value { tag=1, simple_value=2 }
  put_bytes_field(v, 1, tag);
  wire::put_float_field(v, 2, value);
  return framed(scalar_event(wall_time, step, v));
}

std::string tensorboard_summary_record(double wall_time, int64_t step, const std::string& value) {
  return framed(scalar_event(wall_time, step, value));
}

std::string tensorboard_tensor_record(double wall_time, int64_t step, const std::string& tag, float value) {
  if (tag.empty()) return tensorboard_record(wall_time, step, tag, value);
  // SummaryMetadata { plugin_data=1 { plugin_name=1 "scalars" }, data_class=4 DATA_CLASS_SCALAR (1) }
  std::string plugin;
  put_bytes_field(plugin, 1, "scalars");
  std::string metadata;
  put_bytes_field(metadata, 1, plugin);
  wire::put_varint_field(metadata, 4, 1);
  // TensorProto { dtype=1 DT_FLOAT (1), tensor_shape=2 {} (rank 0), float_val=5 [value] (packed) }
  std::string tensor;
  wire::put_varint_field(tensor, 1, 1);
  put_bytes_field(tensor, 2, "");
  std::string packed;
  put_le(packed, value);
  put_bytes_field(tensor, 5, packed);
  std::string v;  // Value { tag=1, tensor=8, metadata=9 }
  put_bytes_field(v, 1, tag);
  put_bytes_field(v, 8, tensor);
  put_bytes_field(v, 9, metadata);
  return framed(scalar_event(wall_time, step, v));
}

std::vector<ScalarPoint> read_tensorboard_scalars(const std::string& path, std::string* warning) {
  const std::string s = read_untrusted_file(path, kMaxRecordFileBytes);
  std::vector<ScalarPoint> out;
  size_t pos = 0;
  auto warn = [&](const std::string& w) {
    if (warning) *warning = fmt::format("{}: {} at byte {}; the records before it were read", path, w, pos);
  };
  while (pos < s.size()) {
    if (s.size() - pos < 12) return warn("a record header cut short"), out;
    uint64_t length;
    uint32_t length_crc;
    std::memcpy(&length, s.data() + pos, 8);
    std::memcpy(&length_crc, s.data() + pos + 8, 4);
    if (length_crc != masked_crc32c(&length, 8)) return warn("a record length with a wrong CRC"), out;
    if (length > s.size() - pos - 12 || s.size() - pos - 12 - length < 4) return warn("a record cut short"), out;
    const size_t data = pos + 12;
    uint32_t data_crc;
    std::memcpy(&data_crc, s.data() + data + length, 4);
    if (data_crc != masked_crc32c(s.data() + data, length)) return warn("a record with a wrong CRC"), out;
    Reader r{s, data, data + length};
    ScalarPoint p;
    bool has_value = false;
    while (r.ok && r.pos < r.end) {
      const uint64_t key = r.varint();
      const int field = static_cast<int>(key >> 3), wire = static_cast<int>(key & 7);
      if (field == 1 && wire == 1 && r.pos + 8 <= r.end) {
        std::memcpy(&p.wall_time, s.data() + r.pos, 8);
        r.pos += 8;
      } else if (field == 2 && wire == 0) {
        p.step = static_cast<int64_t>(r.varint());
      } else if (field == 5 && wire == 2) {
        const uint64_t n = r.varint();
        Reader summary{s, r.pos, std::min<size_t>(r.end, r.pos + n)};
        while (summary.ok && summary.pos < summary.end) {
          const uint64_t k = summary.varint();
          if ((k >> 3) == 1 && (k & 7) == 2) {
            const uint64_t m = summary.varint();
            parse_value(s, summary.pos, std::min<size_t>(summary.end, summary.pos + m), p, has_value);
            summary.pos += m;
          } else {
            summary.skip(static_cast<int>(k & 7));
          }
        }
        r.pos += n;
      } else {
        r.skip(wire);
      }
    }
    if (has_value) out.push_back(p);
    pos = data + length + 4;
  }
  return out;
}

std::vector<std::string> tensorboard_files(const std::string& run_dir) {
  std::vector<std::string> out;
  for (const char* sub : {"", "train", "validation"}) {
    const std::filesystem::path dir = std::filesystem::path(run_dir) / sub;
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    std::vector<std::string> here;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
      if (const std::string name = entry.path().filename().string();
          entry.is_regular_file(ec) && name.rfind("events.out.tfevents.", 0) == 0 && name.find(".hparams.") == std::string::npos)
        here.push_back(entry.path().string());
    std::sort(here.begin(), here.end());  // the name starts with the unix time it was made
    out.insert(out.end(), here.begin(), here.end());
  }
  return out;
}

TensorBoardWriter::TensorBoardWriter(const std::string& dir, const std::vector<HParam>& hparams) {
  const double now = now_seconds();
  open(train_, (std::filesystem::path(dir) / "train").string(), now);
  open(validation_, (std::filesystem::path(dir) / "validation").string(), now);
  if (hparams.empty()) return;
  open(hparams_, dir, now, "hparams.v2");
  hparams_.out << hparams_start_record(now, hparams);
  hparams_.out.flush();
}

void TensorBoardWriter::open(File& f, const std::string& dir, double now, const char* suffix) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  f.path = (std::filesystem::path(dir) / fmt::format("events.out.tfevents.{}.{}.{}", static_cast<int64_t>(now), host, suffix)).string();
  f.out.open(f.path, std::ios::binary | std::ios::app);
  if (!f.out) throw RunError(fmt::format("{}: cannot create the TensorBoard event file", f.path));
  f.out << tensorboard_record(now, 0, "", 0);
  f.out.flush();
}

void TensorBoardWriter::scalar(File& f, int64_t step, const std::string& tag, double value) {
  f.out << tensorboard_tensor_record(now_seconds(), step, tag, static_cast<float>(value));
}

void TensorBoardWriter::on_step(const StepMetrics& e) {
  scalar(train_, e.global_step, "batch_loss", e.loss);
  scalar(train_, e.global_step, "batch_accuracy", e.accuracy);
  scalar(train_, e.global_step, "batch_top_k_categorical_accuracy", e.top_k_accuracy);
  if (e.learning_rate > 0) scalar(train_, e.global_step, "batch_learning_rate", e.learning_rate);
  scalar(train_, e.global_step, "batch_samples_per_sec", e.samples_per_sec);
}

void TensorBoardWriter::on_epoch(const EpochMetrics& e) {
  const int64_t step = std::max(0, e.epoch - 1);  // Keras counts epochs from 0
  scalar(train_, step, "epoch_loss", e.loss);
  scalar(train_, step, "epoch_accuracy", e.accuracy);
  scalar(train_, step, "epoch_top_k_categorical_accuracy", e.top_k_accuracy);
  if (e.learning_rate > 0) scalar(train_, step, "epoch_learning_rate", e.learning_rate);
  if (e.has_validation) {
    scalar(validation_, step, "epoch_loss", e.val_loss);
    scalar(validation_, step, "epoch_accuracy", e.val_accuracy);
    scalar(validation_, step, "epoch_top_k_categorical_accuracy", e.val_top_k_accuracy);
  }
  train_.out.flush();
  validation_.out.flush();
}

void TensorBoardWriter::on_finished(const RunFinished& e) {
  train_.out.flush();
  validation_.out.flush();
  if (!hparams_.out.is_open()) return;
  // TensorBoard's Status: 1 success, 2 failure, 0 unknown (a stopped run may be resumed).
  const int status = e.status == RunStatus::kFinished ? 1 : e.status == RunStatus::kFailed ? 2 : 0;
  hparams_.out << hparams_end_record(now_seconds(), status);
  hparams_.out.flush();
}

}  // namespace mirror
