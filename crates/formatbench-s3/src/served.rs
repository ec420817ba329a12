//! s3s-fs as formatbench serves it: every call goes to s3s-fs's file system, with
//! - each key asked of s3s-fs as it is stored ([`crate::keys`]: a key whose files would not
//!   fit a file name under a stand-in), and given back as it was wherever a reply names it;
//!   LIST is answered here ([`crate::listing`]), from the stored keys;
//! - two fixes to GET: s3s-fs 0.14.1 answers a suffix range longer than the object
//!   (`Range: bytes=-262144` on a 24 KiB file, as Polars asks for an IPC file's footer) with
//!   500: it checks the range clamped, then seeks back the unclamped length, before the file's
//!   start. S3 serves the whole object then (RFC 9110 §14.1.2: a suffix longer than the
//!   representation selects all of it), so such a range is asked of s3s-fs as `bytes=0-`,
//!   which it serves; and the body s3s-fs answers with (4 KiB reads) is replaced by the same
//!   bytes read in large chunks ([`crate::body`]); its headers (length, range, ETag,
//!   metadata) stay s3s-fs's.

use crate::keys::{stored, Names};
use s3s::dto::*;
use s3s::{s3_error, S3Request, S3Response, S3Result, S3};
use std::path::PathBuf;
use std::sync::Arc;

pub struct Served {
    fs: s3s_fs::FileSystem,
    root: PathBuf,
    names: Arc<Names>,
}

impl Served {
    pub fn new(fs: s3s_fs::FileSystem, root: PathBuf) -> Served {
        Served {
            fs,
            root,
            names: Arc::new(Names::default()),
        }
    }

    /// The object's file and its length, when its stored key is a plain relative path there.
    fn object_file(&self, bucket: &str, key: &str) -> Option<(PathBuf, u64)> {
        let relative = std::path::Path::new(key);
        let plain = relative
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        let path = self.root.join(bucket).join(relative);
        let len = std::fs::metadata(&path).ok()?.len();
        plain.then_some((path, len))
    }

    /// A key about to be written: its stand-in's name recorded first, where it has one.
    fn writing(&self, bucket: &str, key: &str) -> S3Result<String> {
        self.names
            .remember(&self.root, bucket, key)
            .map_err(|e| s3_error!(e, InternalError))?;
        Ok(stored(bucket, key).into_owned())
    }

    /// Runs a listing on the blocking pool (it reads folders and name files).
    async fn listing<I: Send + 'static, O: Send + 'static>(
        &self,
        input: I,
        list: fn(&Names, &std::path::Path, I) -> S3Result<O>,
    ) -> S3Result<S3Response<O>> {
        let (names, root) = (self.names.clone(), self.root.clone());
        tokio::task::spawn_blocking(move || list(&names, &root, input))
            .await
            .map_err(|e| s3_error!(e, InternalError))?
            .map(S3Response::new)
    }
}

/// A copy's source, as it is stored.
fn stored_source(source: &mut CopySource) {
    if let CopySource::Bucket { bucket, key, .. } = source {
        let standing = stored(bucket, key).into_owned();
        *key = standing.into_boxed_str();
    }
}

/// The S3 implementation: each named call goes to s3s-fs as it is, beside the calls given
/// whole (the impl is written out by the macro, so async_trait sees every method).
macro_rules! served {
    ($($call:ident: $input:ident => $output:ident,)* ; $($own:item)*) => {
        #[async_trait::async_trait]
        impl S3 for Served {
            $(
                async fn $call(&self, req: S3Request<$input>) -> S3Result<S3Response<$output>> {
                    self.fs.$call(req).await
                }
            )*
            $($own)*
        }
    };
}

served! {
    create_bucket: CreateBucketInput => CreateBucketOutput,
    delete_bucket: DeleteBucketInput => DeleteBucketOutput,
    get_bucket_location: GetBucketLocationInput => GetBucketLocationOutput,
    head_bucket: HeadBucketInput => HeadBucketOutput,
    list_buckets: ListBucketsInput => ListBucketsOutput,
    upload_part: UploadPartInput => UploadPartOutput,
    ;
    async fn list_objects(
        &self,
        req: S3Request<ListObjectsInput>,
    ) -> S3Result<S3Response<ListObjectsOutput>> {
        self.listing(req.input, crate::listing::list_v1).await
    }

    async fn list_objects_v2(
        &self,
        req: S3Request<ListObjectsV2Input>,
    ) -> S3Result<S3Response<ListObjectsV2Output>> {
        self.listing(req.input, crate::listing::list_v2).await
    }

    async fn head_object(
        &self,
        mut req: S3Request<HeadObjectInput>,
    ) -> S3Result<S3Response<HeadObjectOutput>> {
        req.input.key = stored(&req.input.bucket, &req.input.key).into_owned();
        self.fs.head_object(req).await
    }

    async fn put_object(
        &self,
        mut req: S3Request<PutObjectInput>,
    ) -> S3Result<S3Response<PutObjectOutput>> {
        req.input.key = self.writing(&req.input.bucket, &req.input.key)?;
        self.fs.put_object(req).await
    }

    async fn copy_object(
        &self,
        mut req: S3Request<CopyObjectInput>,
    ) -> S3Result<S3Response<CopyObjectOutput>> {
        stored_source(&mut req.input.copy_source);
        req.input.key = self.writing(&req.input.bucket, &req.input.key)?;
        self.fs.copy_object(req).await
    }

    async fn delete_object(
        &self,
        mut req: S3Request<DeleteObjectInput>,
    ) -> S3Result<S3Response<DeleteObjectOutput>> {
        let (bucket, key) = (req.input.bucket.clone(), req.input.key.clone());
        req.input.key = stored(&bucket, &key).into_owned();
        let deleted = self.fs.delete_object(req).await;
        self.names.forget(&self.root, &bucket, &key);
        deleted
    }

    async fn delete_objects(
        &self,
        mut req: S3Request<DeleteObjectsInput>,
    ) -> S3Result<S3Response<DeleteObjectsOutput>> {
        let bucket = req.input.bucket.clone();
        let mut originals = std::collections::HashMap::new();
        for object in &mut req.input.delete.objects {
            let standing = stored(&bucket, &object.key).into_owned();
            if standing != object.key {
                originals.insert(standing.clone(), std::mem::replace(&mut object.key, standing));
            }
        }
        let mut response = self.fs.delete_objects(req).await?;
        for deleted in response.output.deleted.iter_mut().flatten() {
            if let Some(original) = deleted.key.as_ref().and_then(|k| originals.get(k)) {
                deleted.key = Some(original.clone());
            }
        }
        for original in originals.values() {
            self.names.forget(&self.root, &bucket, original);
        }
        Ok(response)
    }

    async fn create_multipart_upload(
        &self,
        mut req: S3Request<CreateMultipartUploadInput>,
    ) -> S3Result<S3Response<CreateMultipartUploadOutput>> {
        let key = req.input.key.clone();
        req.input.key = stored(&req.input.bucket, &key).into_owned();
        let mut response = self.fs.create_multipart_upload(req).await?;
        response.output.key = Some(key);
        Ok(response)
    }

    async fn upload_part_copy(
        &self,
        mut req: S3Request<UploadPartCopyInput>,
    ) -> S3Result<S3Response<UploadPartCopyOutput>> {
        stored_source(&mut req.input.copy_source);
        req.input.key = stored(&req.input.bucket, &req.input.key).into_owned();
        self.fs.upload_part_copy(req).await
    }

    async fn list_parts(
        &self,
        mut req: S3Request<ListPartsInput>,
    ) -> S3Result<S3Response<ListPartsOutput>> {
        let key = req.input.key.clone();
        req.input.key = stored(&req.input.bucket, &key).into_owned();
        let mut response = self.fs.list_parts(req).await?;
        response.output.key = Some(key);
        Ok(response)
    }

    async fn complete_multipart_upload(
        &self,
        mut req: S3Request<CompleteMultipartUploadInput>,
    ) -> S3Result<S3Response<CompleteMultipartUploadOutput>> {
        let key = req.input.key.clone();
        req.input.key = self.writing(&req.input.bucket, &key)?;
        let mut response = self.fs.complete_multipart_upload(req).await?;
        let output = &mut response.output;
        if output.key.is_some() {
            output.key = Some(key.clone());
        }
        // s3s-fs answers through a future (S3's keep-alive while parts are joined): its
        // reply names the key as well.
        if let Some(answer) = output.future.take() {
            output.future = Some(Box::pin(async move {
                let mut answered = answer.await?;
                answered.key = Some(key);
                Ok(answered)
            }));
        }
        Ok(response)
    }

    async fn abort_multipart_upload(
        &self,
        mut req: S3Request<AbortMultipartUploadInput>,
    ) -> S3Result<S3Response<AbortMultipartUploadOutput>> {
        req.input.key = stored(&req.input.bucket, &req.input.key).into_owned();
        self.fs.abort_multipart_upload(req).await
    }

    async fn get_object(
        &self,
        mut req: S3Request<GetObjectInput>,
    ) -> S3Result<S3Response<GetObjectOutput>> {
        req.input.key = stored(&req.input.bucket, &req.input.key).into_owned();
        let file = self.object_file(&req.input.bucket, &req.input.key);
        if let Some(Range::Suffix { length }) = req.input.range {
            if file.as_ref().is_some_and(|(_, len)| *len > 0 && length > *len) {
                req.input.range = Some(Range::Int {
                    first: 0,
                    last: None,
                });
            }
        }
        let range = req.input.range;
        let mut response = self.fs.get_object(req).await?;
        let length = response
            .output
            .content_length
            .and_then(|l| u64::try_from(l).ok());
        if let (Some((path, len)), Some(length)) = (file, length) {
            let start = match range {
                None => Some(0),
                Some(Range::Int { first, .. }) => Some(first),
                Some(Range::Suffix { length }) => len.checked_sub(length),
            };
            // Where anything disagrees (the file changed), s3s-fs's own body stays.
            if let Some(start) = start.filter(|s| s.checked_add(length).is_some_and(|end| end <= len)) {
                if let Ok(body) = crate::body::FileBody::open(&path, start, length).await {
                    response.output.body = Some(StreamingBlob::from(s3s::Body::http_body(body)));
                }
            }
        }
        Ok(response)
    }
}
