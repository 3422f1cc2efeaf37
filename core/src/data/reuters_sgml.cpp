#include "mirror/data/reuters_sgml.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <unordered_map>

#include "mirror/util/error.h"
#include "mirror/util/untrusted_file.h"

namespace mirror {

namespace {
std::string latin1_to_utf8(const std::string& in) {
  std::string out;
  out.reserve(in.size());
  for (unsigned char c : in) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

// Python's s[from:s.find(stop, from)]: a stop that is not found makes find return -1, and the
// slice then ends one character before the end of the text.
std::string slice_to(const std::string& s, size_t from, const std::string& stop) {
  if (from >= s.size()) return "";
  const auto end = s.find(stop, from);
  if (end == std::string::npos) return s.substr(from, s.size() - from - 1);
  return s.substr(from, end - from);
}

void replace_all(std::string& s, const std::string& what) {
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p)) s.erase(p, what.size());
}

void check_records_closed(const std::string& text, const std::string& what) {
  for (size_t pos = 0;;) {
    const auto start = text.find("<REUTERS", pos);
    if (start == std::string::npos) return;
    const auto end = text.find("</REUTERS>", start);
    if (end == std::string::npos)
      throw DataError(fmt::format("{}: the record starting at byte {} is never closed; the file is cut short, "
                                  "download the distribution again", what, start));
    pos = end + 10;
  }
}
}  // namespace

std::vector<KerasReutersWire> keras_reuters_wires(const std::string& text, const std::string& what) {
  check_records_closed(text, what);
  static const std::string kTopics = "<TOPICS>", kBody = "<BODY>";
  std::vector<KerasReutersWire> wires;
  // The script cut its copy of the file after each <TOPICS> and searched what was left; `rest` is
  // where that copy starts.
  for (size_t rest = 0;;) {
    const auto tag = text.find(kTopics, rest);
    if (tag == std::string::npos) break;
    rest = tag + kTopics.size();
    std::string topic = slice_to(text, rest, "</");
    if (topic.empty() || topic.find("</D><D>") != std::string::npos) continue;  // the second test never holds
    replace_all(topic, "<D>");
    replace_all(topic, "</D>");
    // find() returns -1 when no <BODY> is left in the file, and -1 + len("<BODY>") is 5.
    const auto body = text.find(kBody, rest);
    const size_t from = body == std::string::npos ? rest + kBody.size() - 1 : body + kBody.size();
    wires.push_back({std::move(topic), slice_to(text, from, "</")});
  }
  return wires;
}

std::vector<std::string> keras_text_to_words(const std::string& text) {
  static const std::string kFilters = "!\"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n";
  std::vector<std::string> words;
  std::string current;
  for (char ch : text) {
    const char c = (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch + 32) : ch;
    if (c == ' ' || kFilters.find(c) != std::string::npos) {
      if (!current.empty()) words.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) words.push_back(std::move(current));
  return words;
}

uint64_t python27_string_hash(const std::string& bytes) {
  if (bytes.empty()) return 0;
  uint64_t x = static_cast<uint64_t>(static_cast<unsigned char>(bytes[0])) << 7;
  for (unsigned char c : bytes) x = (1000003ULL * x) ^ c;
  x ^= bytes.size();
  if (x == ~uint64_t{0}) x = ~uint64_t{0} - 1;  // -1 is reserved for errors and becomes -2
  return x;
}

std::vector<std::string> python27_dict_order(const std::vector<std::string>& keys) {
  // dictobject.c of CPython 2.7: a table of 8 slots to start with; a new key goes to slot
  // hash & mask, else along i = 5i + perturb + 1 with perturb = hash shifted right 5 bits each
  // try; once two thirds of the slots are filled the table grows to the smallest power of two
  // above 4 * used (2 * used past 50,000 keys) and the keys move over in old slot order.
  struct Entry {
    const std::string* key;
    uint64_t hash;
  };
  std::vector<int64_t> slots(8, -1);
  std::vector<Entry> entries;
  const auto place = [](std::vector<int64_t>& table, const std::vector<Entry>& es, const Entry& e,
                        const std::string* stop_at_equal) -> size_t {
    const uint64_t mask = table.size() - 1;
    uint64_t i = e.hash & mask;
    uint64_t perturb = e.hash;
    for (;;) {
      const int64_t at = table[i & mask];
      if (at < 0) return i & mask;
      const Entry& o = es[static_cast<size_t>(at)];
      if (stop_at_equal && o.hash == e.hash && *o.key == *stop_at_equal) return i & mask;
      i = (i << 2) + i + perturb + 1;
      perturb >>= 5;
    }
  };
  for (const auto& key : keys) {
    const Entry e{&key, python27_string_hash(key)};
    const size_t slot = place(slots, entries, e, &key);
    if (slots[slot] >= 0) continue;  // already there
    slots[slot] = static_cast<int64_t>(entries.size());
    entries.push_back(e);
    if (entries.size() * 3 >= slots.size() * 2) {
      const size_t used = entries.size();
      const size_t min_used = (used > 50000 ? 2 : 4) * used;
      size_t size = 8;
      while (size <= min_used) size <<= 1;
      std::vector<int64_t> grown(size, -1);
      for (int64_t at : slots)
        if (at >= 0) grown[place(grown, entries, entries[static_cast<size_t>(at)], nullptr)] = at;
      slots = std::move(grown);
    }
  }
  std::vector<std::string> order;
  order.reserve(entries.size());
  for (int64_t at : slots)
    if (at >= 0) order.push_back(*entries[static_cast<size_t>(at)].key);
  return order;
}

RawReuters load_reuters_sgml_dir(const std::string& dir, int min_wires_per_topic) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const auto name = entry.path().filename().string();
    if (name.rfind("reut2-", 0) == 0 && entry.path().extension() == ".sgm") files.push_back(entry.path().string());
  }
  if (ec || files.empty())
    throw DataError(fmt::format("{}: no reut2-*.sgm files (the Reuters-21578 distribution has reut2-000.sgm to "
                                "reut2-021.sgm)", dir));
  std::sort(files.begin(), files.end());

  std::vector<KerasReutersWire> wires;
  std::unordered_map<std::string, int64_t> topic_counts;
  for (const auto& f : files) {
    // A Reuters-21578 file is about 1.3 MB; what is not a regular file is refused unread.
    for (auto& w : keras_reuters_wires(read_untrusted_file(f, 256 * 1024 * 1024), f)) {
      ++topic_counts[w.topic];
      wires.push_back(std::move(w));
    }
  }
  RawReuters out;
  out.wires_with_topics = static_cast<int64_t>(wires.size());
  std::unordered_map<std::string, int64_t> label_of;
  std::vector<std::vector<std::string>> texts;
  for (auto& w : wires) {
    if (topic_counts[w.topic] < min_wires_per_topic) continue;
    auto [it, inserted] = label_of.emplace(w.topic, static_cast<int64_t>(label_of.size()));
    if (inserted) out.topic_names.push_back(latin1_to_utf8(w.topic));
    out.y.push_back(it->second);
    texts.push_back(keras_text_to_words(w.text));
  }
  if (texts.empty())
    throw DataError(fmt::format("{}: no topic has {} or more wires", dir, min_wires_per_topic));

  // Tokenizer.fit_on_texts: count in reading order, then a stable sort by count, most frequent
  // first, of the dict's items in their Python 2.7 order.
  std::unordered_map<std::string, int64_t> counts;
  std::vector<std::string> first_seen;
  for (const auto& t : texts)
    for (const auto& word : t)
      if (++counts[word] == 1) first_seen.push_back(word);
  std::vector<std::string> order = python27_dict_order(first_seen);
  std::stable_sort(order.begin(), order.end(),
                   [&](const std::string& a, const std::string& b) { return counts[a] > counts[b]; });
  std::unordered_map<std::string, int64_t> rank;
  for (size_t i = 0; i < order.size(); ++i) rank[order[i]] = static_cast<int64_t>(i) + 1;
  out.words.reserve(order.size());
  for (const auto& w : order) out.words.push_back(latin1_to_utf8(w));
  for (const auto& t : texts) {
    std::vector<int64_t> seq;
    seq.reserve(t.size());
    for (const auto& word : t) seq.push_back(rank[word]);
    out.x.push_back(std::move(seq));
  }
  return out;
}

}  // namespace mirror
