#ifndef FIXTUREKIT_CARCHIVE_SHIM_H
#define FIXTUREKIT_CARCHIVE_SHIM_H

#include <archive.h>
#include <archive_entry.h>

#endif
