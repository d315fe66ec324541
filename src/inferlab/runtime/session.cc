// Placeholder: replaced by the runtime implementation.
#include "inferlab/runtime/session.h"
