"""Walk a tree with os.walk and read every file (skipping .git): a Python agent's repo scan."""
import os
import sys

root = sys.argv[1]
files = 0
size = 0
for dirpath, dirnames, filenames in os.walk(root):
    if ".git" in dirnames:
        dirnames.remove(".git")
    for name in filenames:
        with open(os.path.join(dirpath, name), "rb") as f:
            size += len(f.read())
        files += 1
if files == 0:
    sys.exit("no files read")
