// The part of TensorFlow's C API that pams-cpp uses, declared here (the
// functions are looked up with dlsym at run time, so no TensorFlow header or
// library is needed to build). The declarations follow
// tensorflow/c/c_api.h, whose C ABI TensorFlow keeps stable. Private to the
// library.

#ifndef PAMS_SRC_TENSORFLOW_C_API_H_
#define PAMS_SRC_TENSORFLOW_C_API_H_

#include <cstddef>
#include <cstdint>

extern "C" {
typedef struct TF_Status TF_Status;
typedef struct TF_Graph TF_Graph;
typedef struct TF_Operation TF_Operation;
typedef struct TF_Session TF_Session;
typedef struct TF_SessionOptions TF_SessionOptions;
typedef struct TF_Tensor TF_Tensor;
typedef struct TF_Buffer {
  const void* data;
  size_t length;
  void (*data_deallocator)(void* data, size_t length);
} TF_Buffer;
typedef struct TF_Output {
  TF_Operation* oper;
  int index;
} TF_Output;
}

namespace pams::tensorflow {

// TF_DataType values used here.
constexpr int kTfFloat = 1;
constexpr int kTfDouble = 2;
constexpr int kTfInt32 = 3;
constexpr int kTfInt64 = 9;
constexpr int kTfBool = 10;
constexpr int kTfOk = 0;  // TF_OK

// Function pointers into the loaded library.
struct Api {
  const char* (*Version)();
  TF_Status* (*NewStatus)();
  void (*DeleteStatus)(TF_Status*);
  int (*GetCode)(const TF_Status*);
  const char* (*Message)(const TF_Status*);
  TF_Graph* (*NewGraph)();
  void (*DeleteGraph)(TF_Graph*);
  TF_Operation* (*GraphOperationByName)(TF_Graph*, const char*);
  TF_SessionOptions* (*NewSessionOptions)();
  void (*DeleteSessionOptions)(TF_SessionOptions*);
  void (*SetConfig)(TF_SessionOptions*, const void*, size_t, TF_Status*);
  TF_Buffer* (*NewBuffer)();
  void (*DeleteBuffer)(TF_Buffer*);
  TF_Session* (*LoadSessionFromSavedModel)(const TF_SessionOptions*,
                                           const TF_Buffer*, const char*,
                                           const char* const*, int, TF_Graph*,
                                           TF_Buffer*, TF_Status*);
  void (*CloseSession)(TF_Session*, TF_Status*);
  void (*DeleteSession)(TF_Session*, TF_Status*);
  void (*SessionRun)(TF_Session*, const TF_Buffer*, const TF_Output*,
                     TF_Tensor* const*, int, const TF_Output*, TF_Tensor**, int,
                     const TF_Operation* const*, int, TF_Buffer*, TF_Status*);
  TF_Tensor* (*AllocateTensor)(int, const int64_t*, int, size_t);
  void (*DeleteTensor)(TF_Tensor*);
  int (*TensorType)(const TF_Tensor*);
  int (*NumDims)(const TF_Tensor*);
  int64_t (*Dim)(const TF_Tensor*, int);
  size_t (*TensorByteSize)(const TF_Tensor*);
  void* (*TensorData)(const TF_Tensor*);
};

// The loaded API. Throws ConfigError (with how to install TensorFlow) when
// it cannot be loaded. Thread-safe.
const Api& GetApi();

}  // namespace pams::tensorflow

#endif  // PAMS_SRC_TENSORFLOW_C_API_H_
