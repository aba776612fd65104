"""Runs the queued extraction jobs of a store file until killed (see
test_extraction_crash.py): ``python _extraction_child.py DB_PATH LLM_URL``."""

import sys

from graphmem import GraphMemory, HashingEmbedder, Llm

path, url = sys.argv[1], sys.argv[2]
llm = Llm("crash-llm", api_base=url, max_retries=0, timeout=30)
memory = GraphMemory(path, embedder=HashingEmbedder(dim=16), llm=llm, extraction_workers=0)
print("ready", flush=True)
while memory.run_jobs(max_jobs=1):
    print("job", flush=True)
print("idle", flush=True)
memory.close()
