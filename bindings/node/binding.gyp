{
  "target_defaults": {
    "include_dirs": ["<!(node scripts/sources.js root)/include", "<!(node scripts/sources.js root)/src"],
    "defines": ["<!@(node scripts/sources.js defines)"],
    "cflags": ["-O3", "-ffunction-sections", "-fvisibility=hidden", "-Wno-maybe-uninitialized", "-Wno-unused-parameter", "<!@(pkg-config --cflags jansson)"],
    "cflags!": ["-O0", "-O1", "-O2"],
    "cflags_c": ["-std=gnu11"]
  },
  "targets": [
    {
      "target_name": "zkpipe_ifma",
      "type": "static_library",
      "sources": ["<!@(node scripts/sources.js ifma)"],
      "cflags": ["<!@(node scripts/sources.js cflags)", "-fPIC"]
    },
    {
      "target_name": "zkpipe",
      "dependencies": ["zkpipe_ifma"],
      "sources": ["src/addon.c", "<!@(node scripts/sources.js lib)"],
      "libraries": ["<!@(pkg-config --libs jansson)", "-lpthread", "-ldl"],
      "ldflags": ["-Wl,--exclude-libs,ALL"]
    }
  ]
}
