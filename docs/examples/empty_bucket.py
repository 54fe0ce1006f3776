"""Delete every object version and delete marker of a versioned bucket, so it can be deleted.

Usage: python empty_bucket.py BUCKET
"""

import sys

import boto3

bucket = boto3.resource("s3").Bucket(sys.argv[1])
bucket.object_versions.delete()
print(f"emptied s3://{bucket.name}")
