#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H
// Debian's libxml2 is built with ICU; its headers would pull the system ICU into Swift and
// clash with Foundation's `_FoundationICU` ("'UErrorCode' has different definitions").
// The parser API this package uses never touches the ICU converter fields, so hide them.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#endif
