// Between the runtime and the model loader. Private to the library.

#ifndef PAMS_SRC_TENSORFLOW_RUNTIME_INTERNAL_H_
#define PAMS_SRC_TENSORFLOW_RUNTIME_INTERNAL_H_

namespace pams::tensorflow {

// Records that this process has run TensorFlow (a session exists).
void MarkInitialized();

}  // namespace pams::tensorflow

#endif  // PAMS_SRC_TENSORFLOW_RUNTIME_INTERNAL_H_
