{
  "targets": [
    {
      "target_name": "loadlab_caller",
      "sources": ["caller.c"],
      "cflags": ["-pthread", "-O2"],
      "ldflags": ["-pthread"]
    }
  ]
}
