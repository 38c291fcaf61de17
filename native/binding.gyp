{
  "targets": [
    {
      "target_name": "orbitkv_native",
      "sources": [
        "src/addon.cc",
        "src/aligned_buffer.cc",
        "src/owned_memory.cc",
        "src/unix/unix_socket.cc",
        "src/shm/shared_memory.cc",
        "src/io/completion_sink.cc",
        "src/io/io_op.cc",
        "src/io/io_args.cc",
        "src/io/uring_ring.cc",
        "src/io/pool_io.cc",
        "src/io/fallocate.cc",
        "src/cuda/driver.cc",
        "src/cuda/cuda_binding.cc",
        "src/cuda/completion_queue.cc",
        "src/blocks/crc32c.cc",
        "src/blocks/block_copy.cc",
        "src/blocks/populate.cc",
        "src/loop/busy_poll.cc"
      ],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "src"
      ],
      "defines": [
        "NAPI_VERSION=8",
        "NAPI_CPP_EXCEPTIONS"
      ],
      "cflags!": [
        "-fno-exceptions"
      ],
      "cflags_cc!": [
        "-fno-exceptions",
        "-fno-rtti"
      ],
      "cflags_cc": [
        "-std=c++17",
        "-O2",
        "-fexceptions",
        "-Wall",
        "-Wextra",
        "-Wno-unused-parameter",
        "-Wno-missing-field-initializers"
      ],
      "libraries": [
        "-l:liburing.a",
        "-ldl"
      ]
    },
    {
      "target_name": "orbitkv_native_test",
      "sources": [
        "src/test_addon.cc",
        "src/sandbox.cc",
        "src/owned_memory.cc"
      ],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "src"
      ],
      "defines": [
        "NAPI_VERSION=8",
        "NAPI_CPP_EXCEPTIONS"
      ],
      "cflags!": [
        "-fno-exceptions"
      ],
      "cflags_cc!": [
        "-fno-exceptions",
        "-fno-rtti"
      ],
      "cflags_cc": [
        "-std=c++17",
        "-O2",
        "-fexceptions",
        "-Wall",
        "-Wextra",
        "-Wno-unused-parameter",
        "-Wno-missing-field-initializers"
      ],
      "libraries": []
    }
  ]
}
