// The one include of ONNX Runtime's C++ API for this plugin. The plugin never
// links libonnxruntime: ORT_API_MANUAL_INIT (set by this directory's
// CMakeLists.txt for every file) makes the API wait for Ort::InitApi, which
// OrtLibrary::load calls with the dlopen'd library's OrtApi. The plugin is
// built with hidden visibility, so the API's inline code (and the OrtApi
// pointer it keeps) stays private to it.
#pragma once

#ifndef ORT_API_MANUAL_INIT
#error "build the onnxruntime plugin with ORT_API_MANUAL_INIT (see its CMakeLists.txt)"
#endif

#include <onnxruntime_cxx_api.h>
#include <onnxruntime_session_options_config_keys.h>
