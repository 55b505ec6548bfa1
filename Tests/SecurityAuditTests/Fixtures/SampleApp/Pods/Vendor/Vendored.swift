let vendorURL = "http://vendor.example.com"
