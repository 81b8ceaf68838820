// PAMS_EXPORT marks what libpams.so exports: the public API in include/pams/.
// The library is built with hidden visibility, so everything else (worker
// plumbing, formatting helpers, ...) stays private to it and cannot become
// something plugins depend on by accident.

#ifndef PAMS_EXPORT_H_
#define PAMS_EXPORT_H_

#define PAMS_EXPORT __attribute__((visibility("default")))

#endif  // PAMS_EXPORT_H_
