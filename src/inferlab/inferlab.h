// The public API of libinferlab in one include.
#pragma once

#include "inferlab/core/error.h"
#include "inferlab/core/npy.h"
#include "inferlab/core/tensor.h"
#include "inferlab/model/tensor_file.h"
#include "inferlab/runtime/session.h"
