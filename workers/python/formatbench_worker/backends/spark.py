"""PySpark on a standalone Spark cluster, started for each sample like every cluster peer
(clusters.py): a master and one worker per executor, each its own JVM started through pyspark's
own `bin/spark-class` on 127.0.0.1, the driver in this process (py4j and its JVM), and one
executor JVM per worker. Results are collected into Arrow on the driver (`DataFrame.toArrow`).

What Spark cannot hold it is given as a Spark user gives it: unsigned integers become the types
Spark's own Parquet reader gives them (uint8 → short, uint16 → int, uint32 → long, uint64 →
decimal(20, 0)), before the timer; the verifier takes them as other widths of the same values.
Nanosecond timestamps and zones other than UTC are refused (Spark keeps microseconds, and
instants without their zone).

Object storage needs Spark's S3 connector (hadoop-aws and the AWS SDK bundle), which neither
pyspark's wheel nor the registries formatbench installs from carry: `FORMATBENCH_SPARK_JARS`
names the jars of a user's own installation (comma-separated), and the cluster then reads
`s3a://` through them."""

import os
import sys
import shutil
import socket
import subprocess
import tempfile
import time

from .base import CLUSTER, Unsupported, narrowed
from .clusters import FAULT_ENV, ClusterBackend, partitions

#: Comma-separated jars of Spark's S3 connector from the user's installation.
JARS_ENV = "FORMATBENCH_SPARK_JARS"
#: How long the cluster may take to have every executor registered.
START_TIMEOUT_S = 180
#: Spark's own default executor memory, used when the run sets no cap.
DEFAULT_EXECUTOR_MEMORY = 1 << 30
#: The driver holds the collected result (toArrow); its heap is reserved, not touched.
DRIVER_MEMORY = "4g"

#: Quiet logs: the JVMs' start-up chatter would bury a failure's one line.
_LOG4J = """rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""


def spark_home():
    import pyspark

    return os.path.dirname(pyspark.__file__)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port, process, deadline):
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the Spark master exited ({process.returncode}) before it listened")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"the Spark master did not listen within {START_TIMEOUT_S} s")


def _jars():
    """The S3 connector's jars named by JARS_ENV, or why there are none."""
    named = [j.strip() for j in os.environ.get(JARS_ENV, "").split(",") if j.strip()]
    if not named:
        return None, (f"Spark's S3 connector (hadoop-aws) is not in pyspark's wheel nor on the "
                      f"registries formatbench installs from: set {JARS_ENV} to its jars")
    missing = [j for j in named if not os.path.isfile(j)]
    if missing:
        return None, f"{JARS_ENV} names {missing[0]}, which is not a file"
    return named, None


class _Spark:
    """A standalone cluster on loopback and this process's session on it; or a session on the
    user's master at `address` (`spark://HOST:PORT`), which starts nothing."""

    def __init__(self, ctx, executors, address=None):
        from pyspark.sql import SparkSession

        deadline = time.monotonic() + START_TIMEOUT_S
        home = spark_home()
        self.scratch = tempfile.mkdtemp(prefix="formatbench-spark-")
        conf = os.path.join(self.scratch, "conf")
        os.makedirs(conf)
        with open(os.path.join(conf, "log4j2.properties"), "w") as f:
            f.write(_LOG4J)
        env = dict(os.environ, SPARK_HOME=home, SPARK_CONF_DIR=conf,
                   SPARK_LOG_DIR=self.scratch, SPARK_WORKER_DIR=os.path.join(self.scratch, "work"),
                   SPARK_LOCAL_DIRS=os.path.join(self.scratch, "local"))
        if not address:
            # Loopback only; the user's cluster reaches the driver at this machine's address.
            env["SPARK_LOCAL_IP"] = "127.0.0.1"
        # The driver's JVM reads these from this process's environment.
        os.environ.update({k: v for k, v in env.items()
                           if k in ("SPARK_HOME", "SPARK_CONF_DIR", "SPARK_LOCAL_IP")})
        self.memory = ctx.executor_memory or DEFAULT_EXECUTOR_MEMORY
        memory = f"{max(self.memory >> 20, 1)}m"
        self.executors, self.threads = executors, ctx.threads
        self.processes = []
        if address:
            self.url = address
        else:
            self._start_daemons(env, executors, ctx.threads, memory, deadline)
        builder = SparkSession.builder.master(self.url).appName("formatbench")
        if not address:
            # The executors' Python workers (the partition digests' mapInArrow) run this
            # interpreter, which has pyarrow, not the first python3 on the PATH; PySpark's
            # context reads it from the environment alone.
            os.environ["PYSPARK_PYTHON"] = sys.executable
            builder = (builder.config("spark.driver.host", "127.0.0.1")
                       .config("spark.driver.bindAddress", "127.0.0.1"))
        builder = (builder.config("spark.driver.memory", DRIVER_MEMORY)
                   .config("spark.driver.maxResultSize", "0")
                   .config("spark.ui.enabled", "false")
                   .config("spark.ui.showConsoleProgress", "false")
                   .config("spark.executor.memory", memory)
                   .config("spark.executor.cores", str(ctx.threads))
                   .config("spark.cores.max", str(ctx.threads * executors))
                   .config("spark.local.dir", env["SPARK_LOCAL_DIRS"])
                   # A failed task fails the job, as a dead executor must fail the sample.
                   .config("spark.task.maxFailures", "1")
                   .config("spark.sql.session.timeZone", "UTC")
                   # Naive timestamps stay naive (TIMESTAMP_NTZ), and are written as such.
                   .config("spark.sql.timestampType", "TIMESTAMP_NTZ")
                   .config("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
                   .config("spark.sql.execution.arrow.pyspark.enabled", "true")
                   # Plain local files: no .crc beside each part, no _SUCCESS marker.
                   .config("spark.hadoop.fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem")
                   .config("spark.hadoop.mapreduce.fileoutputcommitter.marksuccessfuljobs",
                           "false"))
        if ctx.storage:
            builder = self._s3(builder, ctx.storage)
        self.session = builder.getOrCreate()
        self.session.sparkContext.setLogLevel("ERROR")
        status = self.session.sparkContext._jsc.sc().getExecutorMemoryStatus
        # The driver counts among the block managers; every executor must have registered.
        while status().size() < executors + 1:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{status().size() - 1} of {executors} Spark executors "
                                   f"registered at {self.url} within {START_TIMEOUT_S} s")
            time.sleep(0.05)

    def _start_daemons(self, env, executors, threads, memory, deadline):
        """The master, then a worker per executor, each through pyspark's bin/spark-class."""
        port = _free_port()
        self.url = f"spark://127.0.0.1:{port}"
        spark_class = os.path.join(env["SPARK_HOME"], "bin", "spark-class")
        log = open(os.path.join(self.scratch, "daemons.log"), "w")
        master = subprocess.Popen(
            [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
             "--port", str(port), "--webui-port", "0"], env=env, stdout=log, stderr=log)
        self.processes.append(master)
        # A worker that finds no master retries only after seconds: start them once it listens.
        _wait_for_port(port, master, deadline)
        for _ in range(executors):
            self.processes.append(subprocess.Popen(
                [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                 "--cores", str(threads), "--memory", memory, "--webui-port", "0",
                 self.url], env=env, stdout=log, stderr=log))

    @staticmethod
    def _s3(builder, target):
        jars, reason = _jars()
        if reason:
            raise Unsupported(reason)
        scheme, _, _ = target["endpoint"].partition("://")
        options = {"endpoint": target["endpoint"], "path.style.access": "true",
                   "connection.ssl.enabled": str(scheme == "https").lower(),
                   "access.key": os.environ.get("AWS_ACCESS_KEY_ID", ""),
                   "secret.key": os.environ.get("AWS_SECRET_ACCESS_KEY", ""),
                   "endpoint.region": target.get("region", "us-east-1"),
                   "attempts.maximum": "3"}
        builder = builder.config("spark.jars", ",".join(jars))
        for key, value in options.items():
            builder = builder.config(f"spark.hadoop.fs.s3a.{key}", value)
        return builder

    def settings(self):
        return {"executors": str(self.executors), "executor_threads": str(self.threads),
                "executor_memory_limit": str(self.memory),
                "cluster": ("Spark standalone: a master and one worker per executor (bin/"
                            "spark-class) on 127.0.0.1, the driver in the Python worker"),
                "spark_config": ("task.maxFailures 1, session time zone UTC, timestampType "
                                 "TIMESTAMP_NTZ, driver memory " + DRIVER_MEMORY)}

    def close(self):
        try:
            self.session.stop()
        finally:
            for process in reversed(self.processes):
                process.terminate()
            for process in self.processes:
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            shutil.rmtree(self.scratch, ignore_errors=True)


def spark_input_schema(schema):
    """The source's Arrow schema with each unsigned integer as the type Spark reads it as."""
    import pyarrow as pa

    widened = {pa.uint8(): pa.int16(), pa.uint16(): pa.int32(), pa.uint32(): pa.int64(),
               pa.uint64(): pa.decimal128(20, 0)}
    return pa.schema([f.with_type(widened.get(f.type, f.type)) for f in schema])


def _refusal(field):
    import pyarrow as pa

    t = field.type
    if pa.types.is_timestamp(t) and t.unit == "ns":
        return "Spark keeps timestamps in microseconds"
    if pa.types.is_timestamp(t) and t.tz not in (None, "UTC", "Etc/UTC", "+00:00"):
        return "Spark's TIMESTAMP keeps the instant, not its zone"
    if pa.types.is_time(t) or pa.types.is_duration(t) or pa.types.is_dictionary(t):
        return f"Spark has no Arrow conversion for {t}"
    return None


class SparkParquet(ClusterBackend):
    name = "py-spark-parquet"
    format = "parquet"
    about = ("PySpark on a standalone Spark cluster (master and N workers, each one executor): "
             "DataFrame.write.parquet / spark.read.parquet, collected with toArrow")
    dists = ("pyspark",)
    modules = ("pyspark", "pyspark.sql")
    ops = ("write", "read", "scan", "project", "range")
    targets = ("arrow", CLUSTER)
    #: Spark has no unsigned integers (spark_input_schema).
    other_widths = True
    #: The format spark.read and DataFrame.write name.
    spark_format = "parquet"
    #: spark.read.parquet takes the directory: the sweep's shared files too.
    file_sets = True

    def probe(self):
        if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
            return "Spark needs Java 17 or later (`apt-get install openjdk-17-jre-headless`)"
        return None

    def object_storage(self):
        return _jars()[1]

    def can_store(self, schema):
        for field in schema:
            reason = _refusal(field)
            if reason:
                return f"'{field.name}' is {field.type}: {reason}"
        return None

    engine = "spark"

    def start_cluster(self, ctx, executors):
        return _Spark(ctx, executors)

    def attach(self, ctx, address, executors):
        return _Spark(ctx, executors, address)

    def stop_cluster(self, running):
        running.close()

    def cluster_settings(self, running):
        return running.settings()

    def settings_for(self, ctx):
        return {"partitions": "one file per partition, as clusters.py's partitions()",
                "unsigned": "widened before the write to the types Spark reads them as"}

    def prepare_input(self, data, ctx):
        """A Spark DataFrame of the source on the driver, in `partitions(rows)` partitions
        (createDataFrame makes one per Arrow batch); the executors get it when the write
        runs."""
        session = ctx.cluster.session
        rows = max(data.num_rows, 1)
        per_partition = -(-rows // partitions(rows))
        session.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(per_partition))
        return session.createDataFrame(data.cast(spark_input_schema(data.schema)))

    def write(self, data, directory, ctx):
        data.write.mode("overwrite").format(self.spark_format).options(**self.write_options()) \
            .save(directory)

    def write_options(self):
        return {}

    def frame(self, path, ctx):
        return ctx.cluster.session.read.parquet(path)

    def read(self, directory, request, ctx):
        from pyspark.sql import functions as F

        path = directory
        if ctx.storage:
            from .. import storage

            path = "s3a://" + storage.path(ctx.storage)
        frame = self.frame(path, ctx)
        frame = narrowed(frame, request, "Spark", lambda f, names: f.select(*names),
                         lambda f, c, lo, hi: f.where((F.col(c) >= lo) & (F.col(c) < hi)))
        where = ".where(lo <= index < hi)" if request.kind == "range" else ""
        if os.environ.get(FAULT_ENV) == "kill-executor":
            frame = frame.mapInArrow(_executor_killer(), frame.schema)
        method = f"spark.read.{self.spark_format}(){where}"
        if ctx.target != CLUSTER:
            ctx.lazy = frame
            return frame.toArrow(), f"{method}.toArrow()"
        from pyspark import StorageLevel

        # Cached on the executors, in memory and spilled past it; the count runs every task.
        kept = frame.persist(StorageLevel.MEMORY_AND_DISK)
        kept.count()
        ctx.lazy = kept
        return kept, f"{method}.persist().count()"

    def release(self, kept, ctx):
        kept.unpersist(blocking=True)

    def partition_digests(self, lazy, ctx, command):
        import json

        from pyspark import cloudpickle

        from .. import partition_digest

        # Spark's Python workers start from their own path: the digest travels by value.
        partition_digest.shipped(cloudpickle)
        rows = lazy.mapInArrow(partition_digest.spark_digester(command),
                               "partial string").collect()
        return [json.loads(row.partial) for row in rows]


def _executor_killer():
    """A function for mapInArrow (tests only, FAULT_ENV) that kills the executor JVM above the
    Python worker running it: the sample must fail and leave no process behind."""

    def kill(batches):
        import os
        import signal

        pid = os.getppid()
        while pid > 1:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"CoarseGrainedExecutorBackend" in f.read():
                    os.kill(pid, signal.SIGKILL)
                    break
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        yield from batches

    return kill


class SparkCsv(SparkParquet):
    """The same cluster on CSV: a header line, the source's types given to the parser as a
    schema (as py-dask-csv gives them)."""

    name = "py-spark-csv"
    format = "csv"
    about = ("PySpark on a standalone Spark cluster (master and N workers, each one executor): "
             "DataFrame.write.csv / spark.read.csv (schema given), collected with toArrow")
    lossy = True
    #: Its floats are compared within a tolerance, which partition digests of exact values
    #: cannot do: its results come back to the driver.
    targets = ("arrow",)
    spark_format = "csv"
    file_sets = False

    def can_store(self, schema):
        from .frames import _no_nested

        return _no_nested(schema) or super().can_store(schema)

    #: Spark's CSV writer trims each value's leading and trailing spaces unless told not to.
    KEEP_SPACES = {"ignoreLeadingWhiteSpace": "false", "ignoreTrailingWhiteSpace": "false"}

    def write_options(self):
        return {"header": "true", **self.KEEP_SPACES}

    def frame(self, path, ctx):
        from pyspark.sql.pandas.types import from_arrow_schema

        schema = from_arrow_schema(spark_input_schema(ctx.schema), prefer_timestamp_ntz=True)
        return ctx.cluster.session.read.options(**self.KEEP_SPACES).csv(path, header=True,
                                                                       schema=schema)


BACKENDS = [SparkParquet(), SparkCsv()]
