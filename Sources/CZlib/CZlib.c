// SwiftPM builds a C target from at least one source file; the API is zlib's own (include/CZlib.h).
#include "CZlib.h"
