#pragma once
// Where this user's files go when no variable says otherwise.

#include <string>

namespace mirror {

// This user's home folder: $HOME when it holds an absolute path, else the home the password
// database gives this process's user (as a login shell would set HOME). Throws ConfigError
// saying which variable to set when neither gives one: a fallback such as /tmp would put this
// user's runs where every other user can read and replace them. Thread-safe.
std::string home_dir();

// $XDG_DATA_HOME when it holds an absolute path (the XDG spec says to ignore a relative one),
// else home_dir()/.local/share. Throws as home_dir() does. Thread-safe.
std::string user_data_dir();

}  // namespace mirror
