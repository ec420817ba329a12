//! s3s-fs as formatbench serves it: every call goes to s3s-fs's file system, except two fixes
//! to GET:
//! - s3s-fs 0.14.1 answers a suffix range longer than the object (`Range: bytes=-262144` on a
//!   24 KiB file, as Polars asks for an IPC file's footer) with 500: it checks the range
//!   clamped, then seeks back the unclamped length, before the file's start. S3 serves the
//!   whole object then (RFC 9110 §14.1.2: a suffix longer than the representation selects all
//!   of it), so such a range is asked of s3s-fs as `bytes=0-`, which it serves;
//! - the body s3s-fs answers with (4 KiB reads) is replaced by the same bytes read in large
//!   chunks ([`crate::body`]); its headers (length, range, ETag, metadata) stay s3s-fs's.

use s3s::dto::*;
use s3s::{S3Request, S3Response, S3Result, S3};
use std::path::PathBuf;

pub struct Served {
    fs: s3s_fs::FileSystem,
    root: PathBuf,
}

impl Served {
    pub fn new(fs: s3s_fs::FileSystem, root: PathBuf) -> Served {
        Served { fs, root }
    }

    /// The object's file and its length, when its key is a plain relative path there.
    fn object_file(&self, bucket: &str, key: &str) -> Option<(PathBuf, u64)> {
        let relative = std::path::Path::new(key);
        let plain = relative
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        let path = self.root.join(bucket).join(relative);
        let len = std::fs::metadata(&path).ok()?.len();
        plain.then_some((path, len))
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
    copy_object: CopyObjectInput => CopyObjectOutput,
    delete_bucket: DeleteBucketInput => DeleteBucketOutput,
    delete_object: DeleteObjectInput => DeleteObjectOutput,
    delete_objects: DeleteObjectsInput => DeleteObjectsOutput,
    get_bucket_location: GetBucketLocationInput => GetBucketLocationOutput,
    head_bucket: HeadBucketInput => HeadBucketOutput,
    head_object: HeadObjectInput => HeadObjectOutput,
    list_buckets: ListBucketsInput => ListBucketsOutput,
    list_objects: ListObjectsInput => ListObjectsOutput,
    list_objects_v2: ListObjectsV2Input => ListObjectsV2Output,
    put_object: PutObjectInput => PutObjectOutput,
    create_multipart_upload: CreateMultipartUploadInput => CreateMultipartUploadOutput,
    upload_part: UploadPartInput => UploadPartOutput,
    upload_part_copy: UploadPartCopyInput => UploadPartCopyOutput,
    list_parts: ListPartsInput => ListPartsOutput,
    complete_multipart_upload: CompleteMultipartUploadInput => CompleteMultipartUploadOutput,
    abort_multipart_upload: AbortMultipartUploadInput => AbortMultipartUploadOutput,
    ;
    async fn get_object(
        &self,
        mut req: S3Request<GetObjectInput>,
    ) -> S3Result<S3Response<GetObjectOutput>> {
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
