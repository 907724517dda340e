import json
print(json.load(open('all_preds.jsonl')))
