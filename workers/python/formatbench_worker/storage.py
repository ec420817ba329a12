"""Object storage for the Python peers (`--storage s3`): the job's `storage` target, reached
through pyarrow's own S3 filesystem (the AWS SDK for C++). Credentials come from the standard
AWS_* variables, which the runner sets for its own server."""

import os

#: The process's clients, by what they reach.
_CLIENTS = {}


def _once(key, build):
    """The process's client for `key`: built by the first call, inside its timer, as a program
    opening the bucket pays for it once, then reused by the later calls. Only clients that
    keep no data: a cached byte would be a request the server never sees."""
    if key not in _CLIENTS:
        _CLIENTS[key] = build()
    return _CLIENTS[key]


def filesystem(target):
    """The process's pyarrow S3FileSystem for the target's endpoint."""
    def build():
        import pyarrow.fs as pafs

        scheme, _, address = target["endpoint"].partition("://")
        return pafs.S3FileSystem(
            access_key=os.environ.get("AWS_ACCESS_KEY_ID"),
            secret_key=os.environ.get("AWS_SECRET_ACCESS_KEY"),
            session_token=os.environ.get("AWS_SESSION_TOKEN") or None,
            region=target.get("region", "us-east-1"),
            endpoint_override=address, scheme=scheme, allow_bucket_creation=False,
            # Short retries: a server that died fails the sample in seconds.
            retry_strategy=pafs.AwsStandardS3RetryStrategy(max_attempts=3))

    return _once(("pyarrow", target["endpoint"]), build)


def path(target, relative=""):
    """`bucket/key/relative`, as pyarrow filesystems name objects; a file the target maps to
    an object of its own (a user's file read in place, `objects`) is that object."""
    own = (target.get("objects") or {}).get(relative.strip("/"))
    if own:
        return "/".join((target["bucket"], own.strip("/")))
    key = target["key"].strip("/")
    return "/".join(p for p in (target["bucket"], key, relative.strip("/")) if p)


def upload(directory, target):
    """Every file under `directory` to the target's key (a PUT each, multipart when large)."""
    import pyarrow.fs as pafs

    pafs.copy_files(directory, path(target), destination_filesystem=filesystem(target))


def url(target, relative=""):
    """`s3://bucket/key/relative`, as Polars and object_store name objects."""
    return "s3://" + path(target, relative)


def located(directory, relative, target):
    """Where a library that takes URLs finds the artifact's `relative`: the local path, or
    its `s3://` URL when the artifact lives in a bucket."""
    if not target:
        return os.path.join(directory, relative) if relative else directory
    return url(target, relative)


def object_store_options(target):
    """The options of object_store's S3 client (the Rust crate inside Polars, delta-rs and
    Lance, which all take this one dictionary as `storage_options`) for the target."""
    options = {
        "aws_access_key_id": os.environ.get("AWS_ACCESS_KEY_ID", ""),
        "aws_secret_access_key": os.environ.get("AWS_SECRET_ACCESS_KEY", ""),
        "aws_region": target.get("region", "us-east-1"),
        "aws_endpoint": target["endpoint"],
        "aws_allow_http": "true",
        "aws_virtual_hosted_style_request": "false",
    }
    token = os.environ.get("AWS_SESSION_TOKEN")
    if token:
        options["aws_session_token"] = token
    return options


def client_missing(module, route):
    """None when the S3 client `module` a route needs is installed, else the route's reason
    to be unsupported (`route` says which library reaches S3 through it)."""
    import importlib.util

    if importlib.util.find_spec(module) is not None:
        return None
    return f"{route}, which is not installed; `formatbench peers install` installs it"


def _obstore_s3(store_class, target, relative=""):
    """The process's S3 store with obstore's API (vortex-data bundles its own copy of it) for
    the objects under the artifact's key, or under `relative` inside it."""
    config = {k: v for k, v in object_store_options(target).items() if k != "aws_allow_http"}
    prefix = "/".join(p for p in (target["key"].strip("/"), relative.strip("/")) if p)
    return _once((store_class, target["endpoint"], target["bucket"], prefix),
                 lambda: store_class(target["bucket"], prefix=prefix, config=config,
                                     client_options={"allow_http": True}))


def vortex_store(target):
    """vortex-data's own object_store S3 client (`vortex.store.S3Store`) under the artifact's
    key."""
    from vortex.store import S3Store

    return _obstore_s3(S3Store, target)


def zarr_store(target, relative):
    """The read-only zarr store of the group at `relative` in the artifact: zarr 3's
    `ObjectStore` over obstore's S3 client (object_store, as in the Rust readers)."""
    from obstore.store import S3Store
    from zarr.storage import ObjectStore

    return ObjectStore(_obstore_s3(S3Store, target, relative), read_only=True)


def fsspec_options(target):
    """`storage_options` for fsspec's s3fs (botocore), the client pandas opens `s3://` URLs
    with, path-style at the target's endpoint."""
    options = {
        "key": os.environ.get("AWS_ACCESS_KEY_ID"),
        "secret": os.environ.get("AWS_SECRET_ACCESS_KEY"),
        "client_kwargs": {"endpoint_url": target["endpoint"],
                          "region_name": target.get("region", "us-east-1")},
        # Short retries: a server that died fails the sample in seconds.
        "config_kwargs": {"s3": {"addressing_style": "path"},
                          "retries": {"max_attempts": 3, "mode": "standard"}},
    }
    token = os.environ.get("AWS_SESSION_TOKEN")
    if token:
        options["token"] = token
    return options


def tiledb_context(target):
    """A TileDB context whose virtual filesystem reaches the target (TileDB's own S3 client,
    the AWS SDK for C++), path-style, over the endpoint's scheme. A new one each call: a
    context's filesystem keeps a read-ahead cache, which would serve a later call's reads
    without a request."""
    import tiledb

    scheme, _, address = target["endpoint"].partition("://")
    config = {
        "vfs.s3.endpoint_override": address,
        "vfs.s3.scheme": scheme,
        "vfs.s3.use_virtual_addressing": "false",
        "vfs.s3.region": target.get("region", "us-east-1"),
        "vfs.s3.aws_access_key_id": os.environ.get("AWS_ACCESS_KEY_ID", ""),
        "vfs.s3.aws_secret_access_key": os.environ.get("AWS_SECRET_ACCESS_KEY", ""),
        # Short retries: a server that died fails the sample in seconds.
        "vfs.s3.connect_max_tries": "3",
    }
    token = os.environ.get("AWS_SESSION_TOKEN")
    if token:
        config["vfs.s3.aws_session_token"] = token
    return tiledb.Ctx(tiledb.Config(config))


def daft_io_config(target):
    """Daft's IOConfig (its own S3 client) for the target; None for local files."""
    if not target:
        return None
    from daft.io import IOConfig, S3Config

    scheme, _, _ = target["endpoint"].partition("://")
    return IOConfig(s3=S3Config(
        endpoint_url=target["endpoint"], region_name=target.get("region", "us-east-1"),
        key_id=os.environ.get("AWS_ACCESS_KEY_ID"),
        access_key=os.environ.get("AWS_SECRET_ACCESS_KEY"),
        session_token=os.environ.get("AWS_SESSION_TOKEN") or None,
        force_virtual_addressing=False, use_ssl=scheme == "https", num_tries=3))
