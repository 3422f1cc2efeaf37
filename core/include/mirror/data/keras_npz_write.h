#pragma once
// Writing a text dataset as Keras keeps its own (reuters.npz, imdb.npz): so that Keras'
// datasets.reuters.load_data(path=...) and mirrortrain read one and the same file.

#include <cstdint>
#include <string>
#include <vector>

namespace mirror {

class Dataset;

// The pickle numpy writes (protocol 3) for a 1-D object array whose items are lists of ints:
// numpy.core.multiarray._reconstruct of an ndarray of dtype 'O', its items a list of lists.
// unpickle_object_array (pickle.h) reads it back; so does numpy.load(allow_pickle=True).
std::string pickle_object_array(const std::vector<std::vector<int64_t>>& items);

// An .npz (stored zip) of x.npy, an object array of word-rank lists, and y.npy, int64 labels:
// Keras' layout of its text datasets. Keras' load_data adds its start mark and index_from to the
// ranks, as mirrortrain's reader does.
std::string keras_text_npz(const std::vector<std::vector<int64_t>>& sequences, const std::vector<int64_t>& labels);

// Every example of a token dataset `d` (training, then validation) as keras_text_npz's
// sequences and labels. `d`'s ids are taken in Keras' processed form (load_data's defaults: 0
// pads, 1 starts, words from index_from 3, as synthetic-text and Reuters have them): the padding
// and start marks are dropped and each word becomes its rank (id - 3), so that load_data gives
// back the same ids. Throws ConfigError for a dataset that is not token ids, or for an id 1 or 2
// inside a sequence (a rank cannot hold them).
void text_examples(const Dataset& d, std::vector<std::vector<int64_t>>& sequences, std::vector<int64_t>& labels);

}  // namespace mirror
