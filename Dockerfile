# The lab as an image, built from the lockfile: a shard of a plan run by a Kubernetes Indexed Job
# (examples/kubernetes/loadlab-shards.yml), or the lab anywhere Docker runs. Build it from the repository:
#   docker build -t loadlab .
#   docker run --rm loadlab --url http://host.docker.internal:3000 --rate 100 -d 10
FROM node:24-slim
WORKDIR /lab
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY bin/ bin/
COPY loadtest/ loadtest/
COPY servers/ servers/
ENTRYPOINT ["node", "bin/loadlab.js"]
