#include "mirror/data/reuters_sgml.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "mirror/util/error.h"

namespace mirror {

namespace {
// Latin-1 to UTF-8, lower-casing the way Python's str.lower() does for these code points.
std::string latin1_to_utf8(const std::string& in, bool lower) {
  std::string out;
  out.reserve(in.size() + in.size() / 8);
  for (unsigned char c : in) {
    if (lower && ((c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7))) c = static_cast<unsigned char>(c + 0x20);
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

std::string between(const std::string& s, size_t from, size_t to, const std::string& open, const std::string& close,
                    bool& found) {
  const auto a = s.find(open, from);
  found = a != std::string::npos && a < to;
  if (!found) return "";
  const auto b = s.find(close, a + open.size());
  if (b == std::string::npos || b > to) {
    found = false;
    return "";
  }
  return s.substr(a + open.size(), b - a - open.size());
}
}  // namespace

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

std::vector<ReutersWire> parse_reuters_sgml(const std::string& text, const std::string& what) {
  std::vector<ReutersWire> wires;
  size_t pos = 0;
  for (;;) {
    const auto start = text.find("<REUTERS", pos);
    if (start == std::string::npos) break;
    const auto end = text.find("</REUTERS>", start);
    if (end == std::string::npos)
      throw DataError(fmt::format("{}: the record starting at byte {} is never closed; the file is cut short, "
                                  "download the distribution again", what, start));
    ReutersWire w;
    const auto tag_end = text.find('>', start);
    const std::string tag = text.substr(start, tag_end - start);
    if (const auto id = tag.find("NEWID=\""); id != std::string::npos) w.newid = std::atoll(tag.c_str() + id + 7);
    bool found = false;
    const std::string topics = between(text, start, end, "<TOPICS>", "</TOPICS>", found);
    for (size_t p = 0;;) {
      const auto a = topics.find("<D>", p);
      if (a == std::string::npos) break;
      const auto b = topics.find("</D>", a);
      if (b == std::string::npos) break;
      w.topics.push_back(latin1_to_utf8(topics.substr(a + 3, b - a - 3), false));
      p = b + 4;
    }
    w.body = latin1_to_utf8(between(text, start, end, "<BODY>", "</BODY>", found), true);
    wires.push_back(std::move(w));
    pos = end + 10;
  }
  return wires;
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

  // Wires with exactly one topic, in file order.
  std::vector<std::pair<std::string, std::string>> single;  // topic, body
  std::map<std::string, int64_t> topic_counts;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    for (auto& w : parse_reuters_sgml(ss.str(), f)) {
      if (w.topics.size() != 1) continue;
      ++topic_counts[w.topics[0]];
      single.emplace_back(w.topics[0], std::move(w.body));
    }
  }
  RawReuters out;
  std::map<std::string, int64_t> label_of;
  std::vector<std::vector<std::string>> texts;
  for (auto& [topic, body] : single) {
    if (topic_counts[topic] < min_wires_per_topic) continue;
    auto [it, inserted] = label_of.emplace(topic, static_cast<int64_t>(label_of.size()));
    if (inserted) out.topic_names.push_back(topic);
    out.y.push_back(it->second);
    texts.push_back(keras_text_to_words(body));
  }
  if (texts.empty())
    throw DataError(fmt::format("{}: no topic has {} or more single-topic wires", dir, min_wires_per_topic));
  // Rank words by count, most frequent first; ties keep the order of first appearance.
  std::unordered_map<std::string, int64_t> first_seen, counts;
  std::vector<std::string> order;
  for (const auto& t : texts)
    for (const auto& word : t) {
      if (first_seen.emplace(word, static_cast<int64_t>(order.size())).second) order.push_back(word);
      ++counts[word];
    }
  std::stable_sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) { return counts[a] > counts[b]; });
  std::unordered_map<std::string, int64_t> rank;
  for (size_t i = 0; i < order.size(); ++i) rank[order[i]] = static_cast<int64_t>(i) + 1;
  out.words = std::move(order);
  for (const auto& t : texts) {
    std::vector<int64_t> seq;
    seq.reserve(t.size());
    for (const auto& word : t) seq.push_back(rank[word]);
    out.x.push_back(std::move(seq));
  }
  return out;
}

}  // namespace mirror
