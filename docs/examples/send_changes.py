"""Send page changes to the sitemap-updater queue with boto3."""

import json
import os

import boto3

QUEUE_URL = os.environ["QUEUE_URL"]  # the stack output QueueUrl

sqs = boto3.client("sqs")
change = {"action": "upsert", "url": "https://www.example.com/shoes/42", "lastmod": "2026-11-20"}
sqs.send_message(QueueUrl=QUEUE_URL, MessageBody=json.dumps(change))

# bulk: up to 500 changes in one message
pages = [{"action": "upsert", "url": f"https://www.example.com/p/{i}"} for i in range(500)]
sqs.send_message(QueueUrl=QUEUE_URL, MessageBody=json.dumps(pages))
