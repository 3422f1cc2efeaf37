#pragma once
// Loading datasets by name with the Dataset type at hand: the registry (dataset_registry.h, light)
// plus dataset.h (torch), for callers that load a dataset and then use it.

#include "mirror/data/dataset.h"
#include "mirror/data/dataset_registry.h"
