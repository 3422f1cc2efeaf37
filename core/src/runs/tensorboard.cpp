#include "mirror/runs/tensorboard.h"

#include <boost/crc.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>

#include "mirror/util/error.h"

namespace mirror {

namespace {
void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
template <typename T>
void put_le(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));  // x86-64 and aarch64 are little-endian, as the format is
  out.append(b, sizeof(T));
}
void put_bytes_field(std::string& out, int field, const std::string& bytes) {
  put_varint(out, static_cast<uint64_t>(field) << 3 | 2);
  put_varint(out, bytes.size());
  out += bytes;
}

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

void parse_value(const std::string& s, size_t pos, size_t end, ScalarPoint& p, bool& has_value) {
  Reader r{s, pos, end};
  while (r.ok && r.pos < r.end) {
    const uint64_t key = r.varint();
    const int field = static_cast<int>(key >> 3), wire = static_cast<int>(key & 7);
    if (field == 1 && wire == 2) {
      const uint64_t n = r.varint();
      if (r.pos + n > r.end) return;
      p.tag = s.substr(r.pos, n);
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
  std::string event;
  put_varint(event, 1 << 3 | 1);
  put_le(event, wall_time);
  put_varint(event, 2 << 3 | 0);
  put_varint(event, static_cast<uint64_t>(step));
  if (tag.empty()) {
    put_bytes_field(event, 3, "brain.Event:2");
  } else {
    std::string v;
    put_bytes_field(v, 1, tag);
    put_varint(v, 2 << 3 | 5);
    put_le(v, value);
    std::string summary;
    put_bytes_field(summary, 1, v);
    put_bytes_field(event, 5, summary);
  }
  std::string record;
  const uint64_t length = event.size();
  put_le(record, length);
  put_le(record, masked_crc32c(&length, sizeof length));
  record += event;
  put_le(record, masked_crc32c(event.data(), event.size()));
  return record;
}

std::vector<ScalarPoint> read_tensorboard_scalars(const std::string& path, std::string* warning) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(fmt::format("{}: cannot read", path));
  const std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
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

TensorBoardWriter::TensorBoardWriter(const std::string& dir) {
  std::filesystem::create_directories(dir);
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  const double now = now_seconds();
  path_ = (std::filesystem::path(dir) / fmt::format("events.out.tfevents.{}.{}", static_cast<int64_t>(now), host)).string();
  out_.open(path_, std::ios::binary | std::ios::app);
  if (!out_) throw RunError(fmt::format("{}: cannot create the TensorBoard event file", path_));
  out_ << tensorboard_record(now, 0, "", 0);
  out_.flush();
}

void TensorBoardWriter::scalar(int64_t step, const std::string& tag, double value) {
  out_ << tensorboard_record(now_seconds(), step, tag, static_cast<float>(value));
}

void TensorBoardWriter::on_step(const StepMetrics& e) {
  last_step_ = e.global_step;
  scalar(e.global_step, "train/loss", e.loss);
  scalar(e.global_step, "train/accuracy", e.accuracy);
  scalar(e.global_step, "train/top_k_accuracy", e.top_k_accuracy);
  scalar(e.global_step, "throughput/samples_per_sec", e.samples_per_sec);
  if (e.learning_rate > 0) scalar(e.global_step, "learning_rate", e.learning_rate);
}

void TensorBoardWriter::on_epoch(const EpochMetrics& e) {
  scalar(last_step_, "epoch/loss", e.loss);
  scalar(last_step_, "epoch/accuracy", e.accuracy);
  if (e.has_validation) {
    scalar(last_step_, "val/loss", e.val_loss);
    scalar(last_step_, "val/accuracy", e.val_accuracy);
    scalar(last_step_, "val/top_k_accuracy", e.val_top_k_accuracy);
  }
  out_.flush();
}

void TensorBoardWriter::on_finished(const RunFinished&) { out_.flush(); }

}  // namespace mirror
